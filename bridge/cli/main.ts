// Process entry for `dsh-dream`: the only place that reads argv, env and sets the exit code.
import os from "node:os";
import { runCli } from "./run";

process.exitCode = runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  homeDir: os.homedir(),
});
