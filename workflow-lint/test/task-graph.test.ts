import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// CI's own pipeline, turbo.json, is checked here beside the workflows. Stop 27 was lost to a
// race it allowed: @mediagen/react's tests read its dist, but its test task waited only on its
// dependencies' builds, so on a faster machine they ran while `rm -rf dist && tsup` was rebuilding.
type Task = { dependsOn?: string[] };
const turbo = JSON.parse(readFileSync(new URL('../../turbo.json', import.meta.url), 'utf8')) as {
  tasks: Record<string, Task>;
};

const testTasks = Object.entries(turbo.tasks).filter(([name]) => name === 'test' || name.endsWith('#test'));
// workflow-lint's own test reads no build output and overrides only its inputs.
const readsBuilds = testTasks.filter(([name]) => !name.startsWith('@mediagen/workflow-lint#'));

describe('the task graph (turbo.json)', () => {
  it('has a default test task and finds every override', () => {
    expect(testTasks.map(([name]) => name)).toContain('test');
  });

  it.each(readsBuilds)('%s runs after its own package is built, and after its dependencies', (_name, task) => {
    expect(task.dependsOn).toEqual(expect.arrayContaining(['build', '^build']));
  });
});
