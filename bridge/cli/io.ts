// What a CLI command may touch: output streams, the environment it was given, and the clock.
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
}
