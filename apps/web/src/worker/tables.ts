import type { AnyFormatPlugin, FormatReader, ReadOptions, TableInfo } from '@binscope/core';
import type { TableView } from '../protocol';

/** Tables listed and kept for the page's picker at most: a file of a million tables lists a window. */
const MAX_LISTED = 20_000;

type TableLister = (reader: FormatReader, options?: ReadOptions) => AsyncIterable<TableInfo>;

/** The plugin's lister of tables known only by reading the file (`capabilities.tables`), if any. */
export function tableLister(plugin: AnyFormatPlugin | undefined): TableLister | undefined {
  return (plugin?.capabilities as { tables?: TableLister } | undefined)?.tables;
}

/** A plain copy: schemas cross to the page by structured clone, which refuses functions. */
export const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function tableView(t: TableInfo): TableView {
  return { name: t.name, title: t.title ?? t.name, schema: plain(t.schema), count: t.count };
}

/**
 * The tables a plugin lists as it reads the file (say every table of every dataset), listed
 * as far as the page has asked and kept (up to MAX_LISTED) so picking one needs no second walk.
 */
export class TableCatalogue {
  private readonly listed: TableInfo[] = [];
  private iterator?: AsyncIterator<TableInfo>;
  private done = false;

  constructor(
    private readonly list: TableLister,
    private readonly reader: FormatReader,
  ) {}

  private async next(signal: AbortSignal): Promise<boolean> {
    this.iterator ??= this.list(this.reader, { signal })[Symbol.asyncIterator]();
    const step = await this.iterator.next();
    if (step.done) {
      this.done = true;
      return false;
    }
    this.listed.push(step.value);
    return true;
  }

  /** Tables [offset, offset + limit) of the listing, and whether more follow. */
  async page(
    offset: number,
    limit: number,
    signal: AbortSignal,
  ): Promise<{ tables: TableView[]; more: boolean }> {
    const end = Math.min(MAX_LISTED, offset + limit);
    while (!this.done && this.listed.length < end + 1) if (!(await this.next(signal))) break;
    const more = this.listed.length > end || (!this.done && end < MAX_LISTED);
    return { tables: this.listed.slice(offset, end).map(tableView), more: more && end < MAX_LISTED };
  }

  /** A table by name: from what was listed, else by listing on. */
  async find(name: string, signal: AbortSignal): Promise<TableInfo | undefined> {
    const known = this.listed.find((t) => t.name === name);
    if (known) return known;
    for await (const table of this.list(this.reader, { signal })) if (table.name === name) return table;
    return undefined;
  }
}
