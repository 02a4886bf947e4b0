// The one table of error codes: each code carries a message template and a hint for the user.
// The same code travels from the store to the CLI (and later the bridge wire) unchanged.

export const ERROR_CODES = {
  INVALID_FIELD: "Fix the field named in the message and try again.",
  MISSING_FIELD: "Add the missing field and try again.",
  INVALID_SOURCE_TYPE: "Use one of the allowed source types.",
  INPUT_TOO_LARGE: "Split the input into smaller pieces.",
  ID_CONFLICT: "Use a new id, or forget the existing record first.",
  NOT_FOUND: "Check the id with `dsh-dream search` or `dsh-dream status`.",
  VECTOR_MISMATCH: "Embed the query with the same provider and model as the stored vectors.",
  JOURNAL_CORRUPT: "Move the damaged journal aside and restore it from a backup; nothing was changed.",
  JOURNAL_VERSION: "Upgrade dsh-dream to a version that knows this journal format.",
  DATA_DIR_LOCKED: "Stop the other dsh-dream process using this data directory, or pass a different --data-dir.",
  IO_ERROR: "Check that the data directory exists, is writable and the disk is not full.",
  BAD_JSON: "Each line must be one complete JSON object.",
  BAD_ARGUMENTS: "Run `dsh-dream help` for usage.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class DreamError extends Error {
  readonly code: ErrorCode;
  readonly field?: string;
  readonly hint: string;

  constructor(code: ErrorCode, message: string, options: { field?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "DreamError";
    this.code = code;
    this.field = options.field;
    this.hint = ERROR_CODES[code];
  }

  toJSON(): { code: ErrorCode; message: string; field?: string; hint: string } {
    return { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}), hint: this.hint };
  }
}

export function isDreamError(error: unknown): error is DreamError {
  return error instanceof DreamError;
}
