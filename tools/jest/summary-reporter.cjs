// Prints one plain closing line that CI tooling reads whatever the runner: "jest: N passed, N failed, N skipped".
// A suite that fails to load has no failed tests, so it is counted as one failure rather than hidden.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const brokenSuites = results.testResults.filter((suite) => suite.testExecError || (suite.failureMessage && suite.numFailingTests === 0)).length;
    const failed = results.numFailedTests + brokenSuites;
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
