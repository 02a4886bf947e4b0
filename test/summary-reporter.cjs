// Prints the plain closing line the CI log reader recognises ("N passed, N failed").
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests ? `, ${results.numPendingTests} skipped` : "";
    console.log(`${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped}`);
  }
}
module.exports = SummaryReporter;
