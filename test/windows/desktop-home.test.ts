// Issue 14, finding 1: DSH Desktop 0.1.x keeps its home at %APPDATA%\DSH Desktop\harness and sets
// DSH_HOME only for its own processes. The installer's choice of home, with Windows' environment
// (the platform and APPDATA faked; the folders are real).
import fs from "node:fs";
import path from "node:path";
import type { InstallOptions } from "../../installer/args";
import { chooseDshHome, desktopHome, type PreflightContext } from "../../installer/preflight";
import { tempDir } from "../store/helpers";

const OPTIONS: InstallOptions = { force: false, uninstall: false, removeData: false, downloadModel: false, json: false, help: false };

function windowsUser(): { context: PreflightContext; cliHome: string; desktop: string } {
  const user = tempDir("win-user-");
  const appData = path.join(user, "AppData", "Roaming");
  const context: PreflightContext = { platform: "win32", env: { APPDATA: appData }, homeDir: user, nodeVersion: "22.12.0", installerDir: user };
  return { context, cliHome: path.join(user, ".dsh"), desktop: path.join(appData, "DSH Desktop", "harness") };
}

describe("which DSH home the installer uses", () => {
  it("finds DSH Desktop's home when only Desktop is installed, and says so", () => {
    const { context, desktop } = windowsUser();
    fs.mkdirSync(desktop, { recursive: true });
    expect(chooseDshHome(OPTIONS, context)).toMatchObject({ dshHome: desktop, chosen: "desktop" });
    expect(desktopHome(context)).toBe(desktop);
  });

  it("keeps %USERPROFILE%\\.dsh when the DSH CLI's home exists (both installed: the CLI's, with -DshHome for Desktop's)", () => {
    const { context, cliHome, desktop } = windowsUser();
    fs.mkdirSync(cliHome, { recursive: true });
    fs.mkdirSync(desktop, { recursive: true });
    expect(chooseDshHome(OPTIONS, context)).toMatchObject({ dshHome: cliHome, chosen: "default" });
  });

  it("names both places it looked when neither exists", () => {
    const { context, cliHome, desktop } = windowsUser();
    expect(chooseDshHome(OPTIONS, context)).toEqual({ dshHome: cliHome, chosen: "default", tried: [cliHome, desktop] });
  });

  it("lets -DshHome and DSH_HOME win, and never looks for Desktop off Windows", () => {
    const { context, desktop } = windowsUser();
    fs.mkdirSync(desktop, { recursive: true });
    expect(chooseDshHome({ ...OPTIONS, dshHome: "/elsewhere" }, context)).toMatchObject({ dshHome: path.resolve("/elsewhere"), chosen: "option" });
    expect(chooseDshHome(OPTIONS, { ...context, env: { ...context.env, DSH_HOME: "/from-env" } })).toMatchObject({ dshHome: path.resolve("/from-env"), chosen: "DSH_HOME" });
    expect(chooseDshHome(OPTIONS, { ...context, platform: "linux" })).toMatchObject({ chosen: "default" });
  });
});
