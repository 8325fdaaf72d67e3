// What happened to the fleet when: each instance's losses (stopped for a redeploy, killed,
// partitioned from Redis) and returns, so a cut stream can be matched to the loss that cut it and
// an interrupted intent's finality timed from when an instance was up again.
export function createTimeline(names) {
  const events = [];
  const up = new Map(names.map((name) => [name, false]));
  return {
    events,
    /** `what`: 'up', 'stop' (SIGTERM: drains), 'kill' (SIGKILL), 'cut' (partitioned from Redis), 'heal'. */
    mark(name, what, at = Date.now()) {
      events.push({ name, what, at });
      if (what === 'up') up.set(name, true);
      if (what === 'stop' || what === 'kill') up.set(name, false);
    },
    /** Losses of `name` (stop, kill, cut) in [from, to]. */
    lossesOf(name, from, to) {
      return events.filter((e) => e.name === name && ['stop', 'kill', 'cut'].includes(e.what) && e.at >= from && e.at <= to);
    },
    /** Losses of any instance in [from, to]. */
    losses(from, to) {
      return events.filter((e) => ['stop', 'kill', 'cut'].includes(e.what) && e.at >= from && e.at <= to);
    },
    /** The first moment at or after `at` when at least one instance was up (serving, not partitioned). */
    upAt(at) {
      const state = new Map(names.map((n) => [n, false]));
      const serving = () => [...state.values()].some(Boolean);
      for (const e of events) {
        if (e.at > at && serving()) return at;
        if (e.what === 'up' || e.what === 'heal') state.set(e.name, true);
        if (['stop', 'kill', 'cut'].includes(e.what)) state.set(e.name, false);
        if (e.at >= at && serving()) return e.at;
      }
      return serving() ? at : undefined;
    },
    count: (what) => events.filter((e) => e.what === what).length,
  };
}
