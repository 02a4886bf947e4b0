import fs from "node:fs";
import path from "node:path";
import { makeDirectory } from "../../bridge/store/make-dir";
import { tempDir } from "./helpers";

function thrownBy(action: () => unknown): NodeJS.ErrnoException {
  try {
    action();
  } catch (error) {
    return error as NodeJS.ErrnoException;
  }
  throw new Error("expected the action to throw");
}

describe("makeDirectory", () => {
  afterEach(() => jest.restoreAllMocks());

  it("creates every missing level of a nested path", () => {
    const root = tempDir("make-dir-");
    const nested = path.join(root, "a", "b", "c");
    makeDirectory(nested);
    expect(fs.statSync(nested).isDirectory()).toBe(true);
  });

  it("accepts a directory that already exists and leaves its contents alone", () => {
    const root = tempDir("make-dir-");
    fs.writeFileSync(path.join(root, "kept.txt"), "kept");
    makeDirectory(root);
    expect(fs.readFileSync(path.join(root, "kept.txt"), "utf8")).toBe("kept");
  });

  it("accepts a level that another process creates between the check and the mkdir", () => {
    const level = path.join(tempDir("make-dir-"), "raced");
    const realMkdir = fs.mkdirSync;
    let raced = false;
    jest.spyOn(fs, "mkdirSync").mockImplementationOnce((dir, options) => {
      realMkdir(dir, options);
      raced = true;
      return realMkdir(dir, options); // the second create is ours, and fails with EEXIST
    });
    makeDirectory(level);
    expect(raced).toBe(true);
    expect(fs.statSync(level).isDirectory()).toBe(true);
  });

  it("refuses a file standing where the directory should be with mkdir's EEXIST on that path", () => {
    const file = path.join(tempDir("make-dir-"), "afile");
    fs.writeFileSync(file, "data");
    const error = thrownBy(() => makeDirectory(file));
    expect(error).toMatchObject({ code: "EEXIST", syscall: "mkdir", path: file });
    expect(fs.readFileSync(file, "utf8")).toBe("data");
  });

  it("refuses a path below a file with ENOTDIR on the first level below it, and creates nothing", () => {
    const file = path.join(tempDir("make-dir-"), "afile");
    fs.writeFileSync(file, "data");
    const error = thrownBy(() => makeDirectory(path.join(file, "sub", "deeper")));
    expect(error).toMatchObject({ code: "ENOTDIR", syscall: "mkdir", path: path.join(file, "sub") });
    expect(fs.readFileSync(file, "utf8")).toBe("data");
  });

  // Node 20's recursive mkdirSync never returns here; a hang would stop this test file (the CLI test
  // of the same path runs in a child process with a kill timer).
  (fs.existsSync("/proc/self") ? it : it.skip)("reports a parent that accepts no new directories (/proc) instead of retrying", () => {
    const error = thrownBy(() => makeDirectory("/proc/dsh-dream-nope/deeper"));
    expect(error).toMatchObject({ code: "ENOENT", syscall: "mkdir", path: "/proc/dsh-dream-nope" });
  });
});
