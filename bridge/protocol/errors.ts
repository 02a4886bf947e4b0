// The one table of error codes: each code carries a message template and a hint for the user.
// The same code travels from the store to the CLI (and later the bridge wire) unchanged.

export const ERROR_CODES = {
  INVALID_FIELD: "Fix the field named in the message and try again.",
  MISSING_FIELD: "Add the missing field and try again.",
  INVALID_SOURCE_TYPE: "Use one of the allowed source types.",
  INPUT_TOO_LARGE: "Split the input into smaller pieces.",
  ID_CONFLICT: "Use a new id, or forget the existing record first.",
  NOT_FOUND: "Find the id with `dsh-dream list` or `dsh-dream search` (or in Settings > Memories).",
  VECTOR_MISMATCH: "Embed the query with the same provider and model as the stored vectors.",
  JOURNAL_CORRUPT: "Move the damaged journal aside and restore it from a backup; nothing was changed.",
  JOURNAL_VERSION: "Upgrade dsh-dream to a version that knows this journal format.",
  DATA_DIR_LOCKED: "Stop the other dsh-dream process using this data directory, or pass a different --data-dir.",
  IO_ERROR: "Check that the data directory exists, is writable and the disk is not full.",
  DISK_FULL: "Free some space on the disk that holds the data directory; nothing of this write was kept, and writing works again by itself once there is room.",
  REEMBED_REFUSED: "Turn on \"On dimension mismatch, try lossless re-embedding\", or switch back to the model the memories were embedded with.",
  EMBEDDING_UNAVAILABLE: "Check the embedding provider settings; the local model is downloaded with Download in Settings > DSH-DREAM or `dsh-dream download-model`.",
  LLM_UNAVAILABLE: "Check DEEPSEEK_API_KEY (or the key of the --base-url you chose), the model name and the provider's status; the message says which.",
  MODEL_DOWNLOAD_FAILED: "Check the network, the model name and the hub (--remote-host, or HF_ENDPOINT for a mirror), then run `dsh-dream download-model` again (or use Download in Settings > DSH-DREAM); it resumes, and no partial model is ever used.",
  BAD_JSON: "Each line must be one complete JSON object.",
  BAD_ENCODING: "Save the file as UTF-8 (PowerShell: Set-Content -Encoding utf8, or Out-File -Encoding utf8) and try again.",
  BAD_ARGUMENTS: "Run `dsh-dream help` for usage.",
  CHROMA_ERROR: "Chroma refused the request; the message says why (a different embedding dimension needs a new collection).",
  UNAUTHORIZED: "Use the token from the bridge file in the data directory.",
  UNKNOWN_METHOD: "Use one of the methods named in the message.",
  UNKNOWN_ROUTE: "The bridge answers POST /v1/rpc and GET /v1/health only.",
  METHOD_NOT_ALLOWED: "Use the HTTP method named in the message.",
  UNSUPPORTED_MEDIA_TYPE: "Send the request body as JSON with Content-Type: application/json.",
  BRIDGE_UNAVAILABLE: "Start it with `dsh-dream serve`, or check the data directory.",
  PROTOCOL_MISMATCH: "Stop the running bridge and start it again with this version of dsh-dream.",
  CHROMA_UNAVAILABLE: "Chroma is restarting or unreachable; writes are kept in the journal and applied when it is back.",
  INTERNAL: "This is a bug; the bridge log has details.",
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
