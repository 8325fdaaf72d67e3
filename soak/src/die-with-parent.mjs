// Preloaded into each child the soak starts (its two instances, the crash part's children; `node --import`), so no child outlives
// the soak, however the soak ends (a SIGKILL included, which runs none of its own code): the soak
// opens an IPC channel to each child, the kernel closes it when the soak dies, and the child
// kills itself on the `disconnect`. The channel is unref'd: it never keeps a finished child alive.
if (process.send) {
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  process.channel?.unref();
}
