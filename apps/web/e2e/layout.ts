import type { Page } from 'playwright-core';

export interface LayoutReport {
  viewport: number;
  documentWidth: number;
  /** Elements laid out on the page (not inside an inner scroll box) that reach past the viewport. */
  overflowing: string[];
  hex?: {
    width: number;
    clientWidth: number;
    scrollWidth: number;
    bytesPerRow: number;
    /** Right edge of the last ASCII cell of the first row, and of the hex view's box. */
    lastAsciiRight: number;
    boxRight: number;
  };
  treeWidth?: number;
}

/**
 * Measures the layout rules in the page: nothing wider than the viewport unless it sits in a
 * scroll box of its own (wide tables scroll inside their wrapper), and a hex view whose rows
 * fit its width.
 */
export function measureLayout(page: Page): Promise<LayoutReport> {
  return page.evaluate(() => {
    const viewport = document.documentElement.clientWidth;
    const scrollsInside = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const style = getComputedStyle(p);
        if (style.overflowX !== 'visible' || style.overflowY !== 'visible') return true;
      }
      return false;
    };
    const describe = (el: Element) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')}`;
    const overflowing: string[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      if (scrollsInside(el)) continue;
      if (r.width > viewport + 0.5 || r.right > viewport + 0.5 || r.left < -0.5)
        overflowing.push(`${describe(el)} [${Math.round(r.left)}, ${Math.round(r.right)}]`);
    }
    const report: LayoutReport = {
      viewport,
      documentWidth: document.documentElement.scrollWidth,
      overflowing,
    };
    const scroll = document.querySelector<HTMLElement>('.hex-scroll');
    const hex = document.querySelector<HTMLElement>('.hex');
    const asciiCells = document.querySelectorAll('.hex-row:first-child .ascii .b');
    if (scroll && hex) {
      report.hex = {
        width: scroll.getBoundingClientRect().width,
        clientWidth: scroll.clientWidth,
        scrollWidth: scroll.scrollWidth,
        bytesPerRow: Number(hex.dataset.bytesPerRow),
        lastAsciiRight: asciiCells[asciiCells.length - 1]?.getBoundingClientRect().right ?? 0,
        boxRight: scroll.getBoundingClientRect().left + scroll.clientWidth,
      };
    }
    const tree = document.querySelector('.tree');
    if (tree) report.treeWidth = tree.getBoundingClientRect().width;
    return report;
  });
}
