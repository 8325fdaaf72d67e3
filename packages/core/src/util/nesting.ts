/**
 * How deep a value from outside may nest arrays and objects: as deep as the service's own parser
 * takes (the emulator refuses past 64). Generate params nest two levels at most.
 */
export const MAX_NESTING = 64;

/**
 * Whether `value` nests arrays or objects deeper than `limit`. Walked with an explicit stack,
 * never recursion, so a hostile body cannot overflow the stack here; run it before any
 * recursive copy (`structuredClone`, a validator) meets the value.
 */
export function nestsDeeperThan(value: unknown, limit = MAX_NESTING): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let entry = stack.pop(); entry; entry = stack.pop()) {
    const [node, depth] = entry;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
