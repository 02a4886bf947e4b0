import fs from "node:fs";
import path from "node:path";
import { DreamError } from "../../bridge/protocol/errors";
import { osErrorToDreamError } from "../../bridge/protocol/os-errors";
import { tempDir } from "../store/helpers";

// As Node builds a system error; EACCES cannot be provoked here (the tests may run as root).
function systemError(code: string, syscall: string, details: { path?: string; dest?: string } = {}): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${syscall}`), { errno: -1, code, syscall, ...details });
}

function thrownBy(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error("expected the action to throw");
}

describe("osErrorToDreamError", () => {
  it("says which file could not be opened, why, and the errno code, keeping the original as the cause", () => {
    const missing = path.join(tempDir("os-errors-"), "missing.jsonl");
    const original = thrownBy(() => fs.readFileSync(missing));
    const mapped = osErrorToDreamError(original);
    expect(mapped).toBeInstanceOf(DreamError);
    expect(mapped?.code).toBe("IO_ERROR");
    expect(mapped?.message).toBe(`cannot open "${missing}": no such file or directory (ENOENT)`);
    expect(mapped?.cause).toBe(original);
  });

  it("reports permission denied (EACCES) as an IO_ERROR naming the path", () => {
    const mapped = osErrorToDreamError(systemError("EACCES", "mkdir", { path: "/srv/data" }));
    expect(mapped?.toJSON()).toEqual({
      code: "IO_ERROR",
      message: 'cannot create directory "/srv/data": permission denied (EACCES)',
      hint: "Check that the data directory exists, is writable and the disk is not full.",
    });
  });

  it("reports a full disk (ENOSPC) and a used-up quota (EDQUOT) as DISK_FULL", () => {
    expect(osErrorToDreamError(systemError("ENOSPC", "write"))?.toJSON()).toMatchObject({ code: "DISK_FULL", message: "cannot write: the disk is full (ENOSPC)" });
    expect(osErrorToDreamError(systemError("EDQUOT", "open", { path: "/home/u/x" }))?.message).toBe('cannot open "/home/u/x": the disk quota is used up (EDQUOT)');
  });

  it("names both ends of a failed rename", () => {
    const mapped = osErrorToDreamError(systemError("EXDEV", "rename", { path: "/a/x.tmp", dest: "/b/x" }));
    expect(mapped?.message).toBe('cannot rename "/a/x.tmp" to "/b/x": it would move across file systems (EXDEV)');
  });

  it("says a file is in the way when mkdir meets EEXIST", () => {
    const file = path.join(tempDir("os-errors-"), "afile");
    fs.writeFileSync(file, "");
    expect(osErrorToDreamError(thrownBy(() => fs.mkdirSync(file)))?.message).toBe(`cannot create directory "${file}": a file with that name is in the way (EEXIST)`);
  });

  it("leaves errors that are not system errors of a file operation unmapped", () => {
    expect(osErrorToDreamError(new TypeError("x is not a function"))).toBeUndefined();
    expect(osErrorToDreamError(Object.assign(new Error("refused"), { code: "ECONNREFUSED", syscall: "connect" }))).toBeUndefined();
    expect(osErrorToDreamError(Object.assign(new Error("no syscall"), { code: "ENOENT" }))).toBeUndefined();
    expect(osErrorToDreamError("ENOENT")).toBeUndefined();
  });
});
