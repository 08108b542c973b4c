import { type RefObject, useLayoutEffect, useState } from 'react';

/** The element's client size, kept current with a ResizeObserver (virtualized lists need it). */
export function useViewportSize(ref: RefObject<HTMLElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    // A background tab's view is out of the document: it keeps the size it had, so it comes back as it was.
    const update = () => el.isConnected && setSize({ width: el.clientWidth, height: el.clientHeight });
    update();
    const observer = new ResizeObserver(update);
    observer.observe(el);
    return () => observer.disconnect();
  }, [ref]);
  return size;
}
