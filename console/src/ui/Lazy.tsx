// Renders a component fetched on first use (a separate chunk), without
// preact/compat's lazy and Suspense.
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { announceError } from '../lib/announce.js';

export function Lazy({ load }: { readonly load: () => Promise<ComponentType> }) {
  const [Component, setComponent] = useState<ComponentType | null>(null);
  useEffect(() => {
    let live = true;
    load().then(
      (loaded) => live && setComponent(() => loaded),
      (error: unknown) =>
        announceError(`This view could not be loaded: ${error instanceof Error ? error.message : String(error)}. Reload the page.`),
    );
    return () => void (live = false);
  }, [load]);
  return Component ? <Component /> : <p class="loading">Loading…</p>;
}
