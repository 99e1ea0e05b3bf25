// Baseline for the agent RSS figure: an idle Node process started the same way (swc register), doing nothing.
setInterval(() => undefined, 1000);
