import type { InspectNode, LocatedProblem } from '@binscope/core';
import type { LocatedDefect, NodeLocation, TreeNodeView } from '../protocol';
import { locatedDefect, nodeView } from './inspect-mode';
import type { SessionFiles } from './session-files';

const LAZY_PAGE = 256;

/**
 * A session's inspection tree as the page walks it: pages of children (lazy pages loaded
 * and cached as asked for), the node owning a byte, the marked problems. Nodes leave here
 * with their file named by session path.
 */
export class SessionTree {
  private readonly lazyPages = new WeakMap<InspectNode, Map<number, Promise<InspectNode[]>>>();
  private defects: LocatedDefect[] = [];

  private constructor(
    readonly root: InspectNode,
    readonly located: readonly LocatedProblem[],
    private readonly files: SessionFiles,
  ) {}

  /** The tree with its marked problems' nodes found (a defect in a row loads that row's page). */
  static async create(
    root: InspectNode,
    located: readonly LocatedProblem[],
    files: SessionFiles,
    signal?: AbortSignal,
  ): Promise<SessionTree> {
    const tree = new SessionTree(root, located, files);
    const child = (parent: InspectNode, index: number) => tree.child(parent, index, signal);
    for (const p of located) {
      const defect = await locatedDefect(root, files.problem(p), located, child);
      tree.defects.push({ ...defect, nodes: defect.nodes.map((n) => tree.named(n)) });
    }
    return tree;
  }

  /** A node for the page; `pluginFile` is the plugin's name for its file (inherited). */
  view(node: InspectNode, pluginFile: string | undefined): TreeNodeView {
    return this.named(nodeView(node, pluginFile, this.located));
  }

  /** A node view built with plugin names, with session paths instead. */
  private named(view: TreeNodeView): TreeNodeView {
    const problems = view.problems?.map((p) => this.files.problem(p));
    return { ...view, file: this.files.fromPlugin(view.file), ...(problems ? { problems } : {}) };
  }

  rootView(): TreeNodeView {
    return this.view(this.root, this.root.file);
  }

  locatedViews(): LocatedDefect[] {
    return this.defects;
  }

  /** The first file a node of the tree has bytes in, from the top down. */
  firstFile(): string | undefined {
    const own = this.files.fromPlugin(this.root.file);
    if (own) return own;
    for (const child of this.root.children ?? []) {
      const file = this.files.fromPlugin(child.file);
      if (file) return file;
    }
    return undefined;
  }

  private lazyPage(parent: InspectNode, page: number, signal?: AbortSignal): Promise<InspectNode[]> {
    let pages = this.lazyPages.get(parent);
    if (!pages) this.lazyPages.set(parent, (pages = new Map()));
    let loaded = pages.get(page);
    if (!loaded) {
      const lazy = parent.lazy!;
      const start = page * LAZY_PAGE;
      loaded = lazy.load(start, Math.min(lazy.count, start + LAZY_PAGE));
      // A failed or cancelled page must not stay cached.
      loaded.catch(() => pages.delete(page));
      pages.set(page, loaded);
    }
    signal?.throwIfAborted();
    return loaded;
  }

  private async lazyChild(parent: InspectNode, index: number, signal?: AbortSignal): Promise<InspectNode> {
    const page = Math.floor(index / LAZY_PAGE);
    return (await this.lazyPage(parent, page, signal))[index - page * LAZY_PAGE];
  }

  private async child(parent: InspectNode, index: number, signal?: AbortSignal): Promise<InspectNode> {
    const eager = parent.children ?? [];
    if (index < eager.length) return eager[index];
    if (!parent.lazy || index - eager.length >= parent.lazy.count) throw new RangeError(`no child ${index}`);
    return this.lazyChild(parent, index - eager.length, signal);
  }

  async children(path: number[], start: number, end: number, signal?: AbortSignal): Promise<TreeNodeView[]> {
    let node = this.root;
    let file = node.file;
    for (const index of path) {
      node = await this.child(node, index, signal);
      file = node.file ?? file;
    }
    const count = (node.children?.length ?? 0) + (node.lazy?.count ?? 0);
    const out: TreeNodeView[] = [];
    for (let i = Math.max(0, start); i < Math.min(count, end); i++) {
      const child = await this.child(node, i, signal);
      out.push(this.view(child, child.file ?? file));
    }
    return out;
  }

  /**
   * The deepest node owning byte `offset` of session file `file` (click a byte → its node),
   * as child positions from the root so the page can expand to it. Children built up front
   * are scanned; lazy children (millions of index rows) are binary-searched a page at a
   * time, which assumes they are in offset order, as every format's row tables are.
   */
  async nodeAt(file: string | undefined, offset: number, signal?: AbortSignal): Promise<NodeLocation> {
    const path: number[] = [];
    const nodes = [this.rootView()];
    let current = this.root;
    let currentFile = current.file;
    for (;;) {
      let found: { node: InspectNode; index: number } | undefined;
      const eager = current.children ?? [];
      for (const [index, child] of eager.entries()) {
        if (this.owns(child, child.file ?? currentFile, file, offset)) {
          found = { node: child, index };
          break;
        }
      }
      if (!found && current.lazy) {
        const hit = await this.searchLazy(current, currentFile, file, offset, signal);
        if (hit) found = { node: hit.node, index: eager.length + hit.index };
      }
      if (!found) break;
      path.push(found.index);
      current = found.node;
      currentFile = current.file ?? currentFile;
      nodes.push(this.view(current, currentFile));
    }
    // A byte of a file no node below the root owns belongs to no node (not to the root).
    if (path.length === 0 && nodes[0].file !== file) return { path: [], nodes: [] };
    return { path, nodes };
  }

  /** Whether a node (whose plugin file is `pluginFile`) holds byte `offset` of session file `file`. */
  private owns(node: InspectNode, pluginFile: string | undefined, file: string | undefined, offset: number) {
    const own = this.files.fromPlugin(pluginFile);
    if (own !== undefined && file !== undefined && own !== file) return false;
    return offset >= node.offset && offset < node.offset + Math.max(node.length, 0);
  }

  private async searchLazy(
    parent: InspectNode,
    parentFile: string | undefined,
    file: string | undefined,
    offset: number,
    signal?: AbortSignal,
  ): Promise<{ node: InspectNode; index: number } | undefined> {
    let lo = 0;
    let hi = parent.lazy!.count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const node = await this.lazyChild(parent, mid, signal);
      const own = this.files.fromPlugin(node.file ?? parentFile);
      if (file !== undefined && own !== undefined && own !== file) return undefined;
      if (offset < node.offset) hi = mid - 1;
      else if (offset >= node.offset + Math.max(node.length, 1)) lo = mid + 1;
      else return node.length > 0 ? { node, index: mid } : undefined;
    }
    return undefined;
  }
}
