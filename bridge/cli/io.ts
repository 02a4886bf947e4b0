// What a CLI command may touch: output streams, the environment it was given, where it runs, and
// (for `serve`) the process's shutdown signals, which only main.ts subscribes to.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
  /** Path of the running CLI script, so that a bridge can be started as `node <selfPath> serve`. */
  selfPath: string;
  version: string;
  onShutdownSignal(handler: (signal: string) => void): void;
}
