// Finding 4 of issue 14: Chroma opens its index files with narrow paths on Windows, so under a
// non-ASCII user name (C:\Users\张三\…) it is given an ASCII junction to its folder instead. Here the
// platform is faked and the real server runs through the link (a symlink on Linux, which is what a
// junction is to the code that makes it); on Linux a non-ASCII folder is also used as it is.
import fs from "node:fs";
import path from "node:path";
import { chromaPathFor } from "../../bridge/chroma/ascii-path";
import { ChromaCollections } from "../../bridge/chroma/chroma-collections";
import { EmbeddedChroma } from "../../bridge/chroma/chroma-process";
import { tempDir } from "../store/helpers";

const BINDING = { provider: "test", model: "unit-4", dim: 4 };

async function writeAndCount(chroma: EmbeddedChroma, ids: string[]): Promise<number> {
  const collections = new ChromaCollections({ url: chroma.url });
  const name = await collections.ensureCollection(BINDING);
  await collections.upsert(
    name,
    ids.map((id, i) => ({ id, document: `钥匙 ${i}`, embedding: [1, i, 0, 1], metadata: { n: i } })),
  );
  return collections.count(name);
}

describe("Chroma under a non-ASCII path", () => {
  it("on Windows gets an ASCII junction to its folder, and its files land in the real folder", async () => {
    const home = tempDir("张三-");
    const chromaDir = path.join(home, "DSH Desktop", "harness", "dsh-dream", "chroma");
    const programData = tempDir("ProgramData-");
    const windows = { platform: "win32" as const, env: { ProgramData: programData } };

    const first = await EmbeddedChroma.start({ dataDir: chromaDir, ...windows });
    try {
      const junction = first.path!.junction!;
      expect(path.dirname(junction)).toBe(programData);
      expect(path.basename(junction)).toMatch(/^dsh-dream-[0-9a-f]{16}$/);
      expect(first.path!.path).toBe(junction);
      expect(fs.realpathSync(junction)).toBe(fs.realpathSync(chromaDir));
      // What the server was started with: the ASCII path.
      if (process.platform === "linux") {
        const argv = fs.readFileSync(`/proc/${first.pid}/cmdline`, "utf8").split("\0");
        expect(argv[argv.indexOf("--path") + 1]).toBe(junction);
      }
      expect(await writeAndCount(first, ["a", "b"])).toBe(2);
    } finally {
      await first.stop();
    }
    expect(fs.readdirSync(chromaDir)).toContain("chroma.sqlite3");

    // The next start finds the same junction and the same data.
    const second = await EmbeddedChroma.start({ dataDir: chromaDir, ...windows });
    try {
      expect(second.path!.junction).toBe(first.path!.junction);
      expect(await writeAndCount(second, ["c"])).toBe(3);
    } finally {
      await second.stop();
    }
  });

  it("on Linux uses a non-ASCII folder as it is", async () => {
    const chromaDir = path.join(tempDir("用户-"), "chroma");
    const chroma = await EmbeddedChroma.start({ dataDir: chromaDir, platform: "linux" });
    try {
      expect(chroma.path).toEqual({ path: chromaDir });
      expect(await writeAndCount(chroma, ["a"])).toBe(1);
    } finally {
      await chroma.stop();
    }
    expect(fs.readdirSync(chromaDir)).toContain("chroma.sqlite3");
  });
});

describe("chromaPathFor", () => {
  it("passes ASCII paths through on every platform", () => {
    const dir = path.join(tempDir("ascii-"), "chroma");
    expect(chromaPathFor(dir, { platform: "win32", env: { ProgramData: "/nowhere" } })).toEqual({ path: dir });
  });

  it("replaces a junction of ours that points elsewhere (a data directory that moved)", () => {
    const programData = tempDir("ProgramData-");
    const chromaDir = path.join(tempDir("张三-"), "chroma");
    const first = chromaPathFor(chromaDir, { platform: "win32", env: { ProgramData: programData } });
    fs.unlinkSync(first.junction!);
    fs.symlinkSync(tempDir("elsewhere-"), first.junction!);
    const again = chromaPathFor(chromaDir, { platform: "win32", env: { ProgramData: programData } });
    expect(again.junction).toBe(first.junction);
    expect(fs.realpathSync(again.junction!)).toBe(fs.realpathSync(chromaDir));
  });

  it("warns, naming the folder and the fix, when no junction can be made", () => {
    const chromaDir = path.join(tempDir("张三-"), "chroma");
    const nonAscii = chromaPathFor(chromaDir, { platform: "win32", env: { ProgramData: "C:\\数据" } });
    expect(nonAscii.path).toBe(chromaDir);
    expect(nonAscii.warning).toBe(
      `Chroma's folder ${chromaDir} has non-ASCII characters, which Chroma cannot open on Windows, and no ASCII folder for a junction was found (ProgramData is C:\\数据); ` +
        "move the data directory to an ASCII path (set DSH_HOME, e.g. C:\\dsh) to keep the Chroma replica working",
    );
    // A real folder where the junction would go is never deleted.
    const programData = tempDir("ProgramData-");
    const planned = chromaPathFor(chromaDir, { platform: "win32", env: { ProgramData: programData } }).junction!;
    fs.unlinkSync(planned);
    fs.mkdirSync(planned);
    fs.writeFileSync(path.join(planned, "keep.txt"), "someone's");
    const blocked = chromaPathFor(chromaDir, { platform: "win32", env: { ProgramData: programData } });
    expect(blocked.path).toBe(chromaDir);
    expect(blocked.warning).toContain(`the junction ${planned} could not be made`);
    expect(fs.readFileSync(path.join(planned, "keep.txt"), "utf8")).toBe("someone's");
  });
});
