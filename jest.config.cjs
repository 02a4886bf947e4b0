// swc in CommonJS mode: fastest transform measured here (dependency-notes §6); types are checked by `npm run typecheck`.
module.exports = {
  testEnvironment: "node",
  roots: ["<rootDir>/test"],
  testMatch: ["**/*.test.ts"],
  transform: { "^.+\\.(t|j)sx?$": ["@swc/jest", { jsc: { target: "es2022" }, module: { type: "commonjs" } }] },
  reporters: ["default", "<rootDir>/test/summary-reporter.cjs"],
  testTimeout: 60000,
  setupFilesAfterEnv: ["<rootDir>/test/temp-cleanup.ts"],
  // The DSH test host's own install (npm packages and a Node 24) is not part of the suite.
  modulePathIgnorePatterns: ["<rootDir>/test/dsh-host/node_modules"],
  watchPathIgnorePatterns: ["<rootDir>/test/dsh-host/node_modules"],
};
