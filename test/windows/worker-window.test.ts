// Issue 14, finding 7: the embedding worker is a node.exe child of a detached bridge. Spawned with
// inherited stdio and without windowsHide, Windows opened a console window for it that stayed, and
// closing it killed embeddings. What can be checked here: how it is spawned.
import childProcess from "node:child_process";
import { LocalWorker } from "../../bridge/embed/local-worker";
import { tempDir } from "../store/helpers";

it("spawns the embedding worker hidden, without a shell and without inheriting a console", async () => {
  const spawn = jest.spyOn(childProcess, "spawn");
  const worker = new LocalWorker({ runtimeUrl: "file:///nonexistent/runtime.mjs", runtimeModule: "@xenova/transformers", modelDir: tempDir("worker-"), model: "org/none", quantized: true });
  try {
    expect(spawn).toHaveBeenCalledTimes(1);
    const options = spawn.mock.calls[0]![2] as childProcess.SpawnOptions;
    expect(options).toMatchObject({ windowsHide: true, shell: false, stdio: ["ignore", "pipe", "pipe", "ipc"] });
    await expect(worker.ready).rejects.toThrow();
  } finally {
    await worker.close();
    spawn.mockRestore();
  }
});
