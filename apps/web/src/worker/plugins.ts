/**
 * The formats the site knows: core's registry over the five plugins, imported from the
 * packages' browser-safe main entries (never `/node`). Registration order breaks ties.
 */
import { createRegistry } from '@binscope/core';
import { mldfPlugin } from '@binscope/mldf';
import { scbfPlugin } from '@binscope/scbf';
import { scdlPlugin } from '@binscope/scdl';
import { taridxPlugin } from '@binscope/taridx';
import { udfPlugin } from '@binscope/udf';

export const registry = createRegistry([scbfPlugin, udfPlugin, mldfPlugin, taridxPlugin, scdlPlugin]);
