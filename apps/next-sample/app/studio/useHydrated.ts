'use client';
import { useSyncExternalStore } from 'react';

const never = () => () => {};

/**
 * false while the server renders and while React hydrates its HTML, true after: what depends on
 * the browser's clock or time zone is rendered only then, so the first client render matches the
 * server's byte for byte (a mismatch is React's error #418, and the page's text is thrown away).
 */
export const useHydrated = (): boolean =>
  useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
