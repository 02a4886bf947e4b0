// Turns a Node system error (ENOENT, EACCES, ENOSPC, …) into a DreamError whose message says in plain
// words what failed, on which path, and the errno code: `cannot create directory "/x": permission
// denied (EACCES)`. Codes not listed here are not the user's to fix and stay what they were.
import { types } from "node:util";
import { DreamError, type ErrorCode } from "./errors";

const REASONS: Readonly<Record<string, string>> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "a part of the path is a file, not a directory",
  EEXIST: "it already exists",
  EISDIR: "it is a directory, not a file",
  ENOTEMPTY: "the directory is not empty",
  EACCES: "permission denied",
  EPERM: "the operation is not permitted",
  EROFS: "the file system is read-only",
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the file is too large",
  EMFILE: "this process has too many files open",
  ENFILE: "the system has too many files open",
  EBUSY: "it is in use by another program",
  ENAMETOOLONG: "the path is too long",
  ELOOP: "the path has too many symbolic links (a loop)",
  EXDEV: "it would move across file systems",
  EIO: "the disk reported an input/output error",
};

// Where mkdir's reason differs: ENOENT for mkdir also comes from a parent that exists but takes no new
// entries (/proc, /sys), and EEXIST is something that is not a directory standing in the way.
const MKDIR_REASONS: Readonly<Record<string, string>> = {
  ENOENT: "its parent directory is missing or does not accept new directories",
  EEXIST: "a file with that name is in the way",
};

const DISK_FULL_CODES = new Set(["ENOSPC", "EDQUOT"]);

const VERBS: Readonly<Record<string, string>> = {
  mkdir: "cannot create directory",
  open: "cannot open",
  read: "cannot read",
  write: "cannot write",
  close: "cannot close",
  fsync: "cannot flush to disk",
  fdatasync: "cannot flush to disk",
  stat: "cannot read",
  lstat: "cannot read",
  fstat: "cannot read",
  access: "cannot access",
  scandir: "cannot list directory",
  opendir: "cannot list directory",
  readlink: "cannot read link",
  rename: "cannot rename",
  copyfile: "cannot copy",
  cp: "cannot copy",
  link: "cannot link",
  symlink: "cannot create link",
  unlink: "cannot remove",
  rmdir: "cannot remove directory",
  rm: "cannot remove",
  chmod: "cannot change permissions of",
  chown: "cannot change the owner of",
  utime: "cannot update",
  futime: "cannot update",
  ftruncate: "cannot truncate",
  truncate: "cannot truncate",
  mkdtemp: "cannot create a temporary directory in",
  statfs: "cannot read free space of",
};

/**
 * The DreamError (IO_ERROR, or DISK_FULL for ENOSPC/EDQUOT) for a Node system error from a file
 * operation, with the original as its cause; undefined for anything else (a bug stays a bug).
 */
export function osErrorToDreamError(error: unknown): DreamError | undefined {
  // Not `instanceof Error`: an error made in another realm (a vm context, jest's sandbox) is no instance of ours.
  if (!types.isNativeError(error)) return undefined;
  const { code, syscall, path, dest } = error as NodeJS.ErrnoException & { dest?: unknown };
  if (typeof code !== "string" || typeof syscall !== "string" || !(code in REASONS)) return undefined;
  const reason = (syscall === "mkdir" ? MKDIR_REASONS[code] : undefined) ?? REASONS[code];
  const errorCode: ErrorCode = DISK_FULL_CODES.has(code) ? "DISK_FULL" : "IO_ERROR";
  return new DreamError(errorCode, `${describeOperation(syscall, path, dest)}: ${reason} (${code})`, { cause: error });
}

function describeOperation(syscall: string, path: unknown, dest: unknown): string {
  // spawn's syscall names the program ("spawn /usr/bin/git").
  const verb = syscall.startsWith("spawn") ? "cannot start" : (VERBS[syscall] ?? `cannot ${syscall}`);
  if (typeof path !== "string") return verb;
  return typeof dest === "string" ? `${verb} "${path}" to "${dest}"` : `${verb} "${path}"`;
}
