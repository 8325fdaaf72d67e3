import { describe, expect, it } from 'vitest';
import { idFromCookie } from '../src/server';

/** The samples' `identify`: a user cookie names a user only when its value is exactly an id `randomUUID` makes. */
const NAME = 'mediagen_user';

describe('idFromCookie', () => {
  it('takes exactly a randomUUID value, and nothing that merely starts or ends with one', () => {
    const id = crypto.randomUUID();
    expect(idFromCookie(`${NAME}=${id}`, NAME)).toBe(id);
    expect(idFromCookie(`theme=dark;  ${NAME}=${id} ; other=1`, NAME)).toBe(id);
    for (const value of [`${id}=x`, `${id}=`, `"${id}"`, `${id}x`, `x${id}`, id.toUpperCase(), `${id} x`, '', 'admin']) {
      expect(idFromCookie(`${NAME}=${value}`, NAME), value).toBeUndefined();
    }
    // Another cookie whose name ends like it, or a name with no value, is not it.
    expect(idFromCookie(`x${NAME}=${id}`, NAME)).toBeUndefined();
    expect(idFromCookie(NAME, NAME)).toBeUndefined();
    expect(idFromCookie(undefined, NAME)).toBeUndefined();
  });

  it('lets the first cookie of the name decide (a refused one is not passed over for a later one)', () => {
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    expect(idFromCookie(`${NAME}=${a}; ${NAME}=${b}`, NAME)).toBe(a);
    expect(idFromCookie(`${NAME}=${a}=x; ${NAME}=${b}`, NAME)).toBeUndefined();
  });

  it('answers the id exactly as sent or nothing, whatever follows it in the value', () => {
    const id = crypto.randomUUID();
    for (const tail of ['=', '=x', '==', 'a', '-', '\u0000', '%3D', ',x', ' =x', '\t', '0'.repeat(64)]) {
      const found = idFromCookie(`${NAME}=${id}${tail}`, NAME);
      // Trailing blanks are not part of a cookie value; anything else makes it no id.
      expect(found, JSON.stringify(tail)).toBe(tail.trim() === '' ? id : undefined);
    }
  });
});
