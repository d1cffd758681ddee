// Small hooks shared by the views.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { createApi, type Api } from './api.js';

/** An AbortSignal that fires when the component (a view) unmounts, and a REST client bound to it. */
export function useViewApi(): { readonly signal: AbortSignal; readonly api: Api } {
  const controller = useMemo(() => new AbortController(), []);
  useEffect(() => () => controller.abort(new DOMException('The view was left', 'AbortError')), [controller]);
  return useMemo(() => ({ signal: controller.signal, api: createApi(controller.signal) }), [controller]);
}

/** `value`, once it has stayed the same for `ms` (typing settles before a request). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * A key that changes with every opening of a dialog. A dialog closed with
 * Escape and reopened before its close was rendered (a quick keyboard user)
 * would otherwise stay mounted but closed; a new key mounts it afresh, and
 * the Modal opens on mount.
 */
export function useOpenings(): readonly [number, () => void] {
  const [openings, setOpenings] = useState(0);
  return [openings, () => setOpenings((n) => n + 1)];
}
