// @tanstack/virtual-core in Preact: the same wiring as its React adapter (a
// re-render on every change, mount and update hooks), for a scrolling element.
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/virtual-core';

type Options = Pick<
  VirtualizerOptions<HTMLElement, HTMLElement>,
  'count' | 'getScrollElement' | 'estimateSize' | 'overscan' | 'getItemKey'
>;

export function useVirtualizer(options: Options): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const resolved: VirtualizerOptions<HTMLElement, HTMLElement> = {
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    ...options,
    onChange: () => rerender(undefined),
  };
  const [instance] = useState(() => new Virtualizer(resolved));
  instance.setOptions(resolved);
  useLayoutEffect(() => instance._didMount(), []);
  useLayoutEffect(() => instance._willUpdate());
  return instance;
}
