// What a CLI command may touch: output streams, the environment it was given, where it runs, and
// (for `serve`) the process's shutdown signals and stdin, which only main.ts subscribes to.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
  /** Path of the running CLI script, so that a bridge can be started as `node <selfPath> serve`. */
  selfPath: string;
  version: string;
  /** Reads stdin to its end (for `add` and `edit` with text piped in, or `--text-file -`). */
  readStdin?(): Promise<string>;
  /** Whether stdin is a terminal: then nothing is piped in, and `add` without text asks for it. */
  stdinIsTty?: boolean;

  onShutdownSignal(handler: (signal: string) => void): void;
  /**
   * For `serve --owner-pipe`: calls `onClosed` once stdin reaches its end (the owner that holds the
   * other end of the pipe has died, however it died). The returned function stops watching.
   */
  watchInput?(onClosed: () => void): () => void;
}
