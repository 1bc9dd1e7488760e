// Nothing in a test run should talk to the outside world or depend on the caller's shell.
process.env.TZ = 'UTC'
process.env.LOG_LEVEL ??= 'silent'
