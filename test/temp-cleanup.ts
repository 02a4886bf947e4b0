// Runs in every test file (jest's setupFilesAfterEnv): the temporary folders the file made with
// test/store/helpers' tempDir are deleted after its last test, so a run leaves nothing in the
// machine's temp folder (the installer tests clean their own with removeTempDirs).
import { removeCreatedTempDirs } from "./store/helpers";

afterAll(removeCreatedTempDirs);
