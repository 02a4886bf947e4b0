// The store as a library: what a developer (and the crash-injection tests) import from dist/store.cjs.
export { MemoryStore } from "./store/memory-store";
export type { StoreOptions, ImportReport } from "./store/memory-store";
export { parseSearchRequest } from "./store/search-request";
export { DreamError, ERROR_CODES } from "./protocol/errors";
export { SOURCE_TYPES } from "./store/records";
export { tokenize } from "./index/tokenize";
