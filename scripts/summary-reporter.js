// Jest reporter that ends the run with one plain line: "N passed, N failed, N skipped".
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const {
      numPassedTests: passed,
      numFailedTests: failed,
      numPendingTests: skipped,
      numTodoTests: todo,
    } = results;
    const suitesFailed = results.numFailedTestSuites;
    if (suitesFailed > 0 && failed === 0) console.log(`(${suitesFailed} test suites failed to run)`);
    console.log(
      `\n${passed} passed, ${failed + (failed === 0 ? suitesFailed : 0)} failed, ${skipped + todo} skipped`,
    );
  }
}
module.exports = SummaryReporter;
