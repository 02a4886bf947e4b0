// Issue 14, finding 9: Windows refuses a rename while another program holds the file for a moment
// (antivirus, the indexer, a `Get-Content -Wait` reader). Renames are retried; the audit log, which
// every search writes, never fails a search. Refusals are injected into fs.renameSync.
import fs from "node:fs";
import path from "node:path";
import { renameWithRetry, retryableRenameError } from "../../bridge/store/fs-retry";
import { parseSearchRequest } from "../../bridge/store/search-request";
import { openStore, tempDir } from "../store/helpers";

afterEach(() => jest.restoreAllMocks());

function refuseRenames(code: string, times: number): jest.SpyInstance {
  const real = fs.renameSync;
  let left = times;
  return jest.spyOn(fs, "renameSync").mockImplementation((from, to) => {
    if (left-- > 0) throw Object.assign(new Error(`${code}: operation not permitted, rename '${String(from)}'`), { code });
    return real(from, to);
  });
}

describe("renameWithRetry", () => {
  it.each(["EPERM", "EACCES", "EBUSY"])("retries a Windows %s refusal and then renames", (code) => {
    const dir = tempDir("rename-");
    fs.writeFileSync(path.join(dir, "a"), "new");
    fs.writeFileSync(path.join(dir, "b"), "old");
    const spy = refuseRenames(code, 3);
    renameWithRetry(path.join(dir, "a"), path.join(dir, "b"), "win32");
    expect(spy).toHaveBeenCalledTimes(4);
    expect(fs.readFileSync(path.join(dir, "b"), "utf8")).toBe("new");
  });

  it("gives up after its attempts with the last refusal, leaving both files as they were", () => {
    const dir = tempDir("rename-");
    fs.writeFileSync(path.join(dir, "a"), "new");
    fs.writeFileSync(path.join(dir, "b"), "old");
    const spy = refuseRenames("EBUSY", 100);
    expect(() => renameWithRetry(path.join(dir, "a"), path.join(dir, "b"), "win32")).toThrow("EBUSY");
    expect(spy).toHaveBeenCalledTimes(8);
    expect([fs.readFileSync(path.join(dir, "a"), "utf8"), fs.readFileSync(path.join(dir, "b"), "utf8")]).toEqual(["new", "old"]);
  });

  it("fails at once on POSIX permissions and on errors no retry can fix", () => {
    expect([retryableRenameError("EPERM", "linux"), retryableRenameError("EACCES", "darwin"), retryableRenameError("EBUSY", "linux")]).toEqual([false, false, true]);
    expect([retryableRenameError("ENOENT", "win32"), retryableRenameError("EXDEV", "win32"), retryableRenameError("EPERM", "win32")]).toEqual([false, false, true]);
    const spy = refuseRenames("ENOENT", 100);
    expect(() => renameWithRetry("/nope/a", "/nope/b", "win32")).toThrow("ENOENT");
    expect(spy).toHaveBeenCalledTimes(1);
  });
});

describe("the audit log under a refused rotation or a failed append", () => {
  it("answers every search when its receipt cannot be written, keeps the receipt in memory, and says so in status", () => {
    const store = openStore();
    try {
      store.add({ id: "k1", text: "钥匙放在鞋柜里了。", source_type: "user_message", timestamp_ms: 1 });
      jest.spyOn(fs, "appendFileSync").mockImplementation(() => {
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      });
      const answer = store.search(parseSearchRequest({ query: "钥匙在哪里", top_k: 3 }));
      expect(answer.results.map((r) => r.id)).toEqual(["k1"]);
      expect(store.receipts.require(answer.receipt.receipt_id).receipt_id).toBe(answer.receipt.receipt_id);
      expect(store.status()).toMatchObject({ audit: { failed_writes: 1, last_error: "ENOSPC: no space left on device, write" } });
    } finally {
      jest.restoreAllMocks();
      store.close();
    }
  });
});

describe("every rename in the shipped code", () => {
  it("goes through renameWithRetry (the plugin's config sync and the installer included)", () => {
    const root = path.join(__dirname, "..", "..");
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (/\.(ts|cjs|mjs)$/.test(entry.name) && !full.endsWith(path.join("store", "fs-retry.ts"))) {
          fs.readFileSync(full, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (/\bfs\.renameSync\(/.test(line) && !/^\s*(\/\/|\*)/.test(line)) offenders.push(`${path.relative(root, full)}:${i + 1}`);
            });
        }
      }
    };
    for (const dir of ["bridge", "plugin", "installer"]) walk(path.join(root, dir));
    expect(offenders).toEqual([]);
  });
});
