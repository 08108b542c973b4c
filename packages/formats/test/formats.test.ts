import { fileTarget, MemorySource } from '@binscope/core';
import { expect, it } from 'vitest';
import { converters, createFormatRegistry, formats } from '../src/index.js';

it('lists each format once, by id, with the detection-only entries after the formats', () => {
  const ids = formats.map((f) => f.id);
  expect(new Set(ids).size).toBe(ids.length);
  const firstDetectionOnly = formats.findIndex((f) => (f.role ?? 'format') !== 'format');
  expect(formats.slice(firstDetectionOnly).every((f) => (f.role ?? 'format') !== 'format')).toBe(true);
  expect(
    formats.filter((f) => (f.role ?? 'format') === 'format').every((f) => typeof f.load === 'function'),
  ).toBe(true);
});

it('lists each converter once and names only known or detection-only inputs', () => {
  const ids = converters.map((c) => c.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const c of converters) expect(typeof c.load).toBe('function');
});

it('lets extra formats claim a file first', async () => {
  const toy = {
    specificationVersion: 2 as const,
    id: 'toy',
    title: 'toy',
    kind: 'file' as const,
    extensions: ['toy'],
    magic: [{ offset: 0, bytes: 'TOY!' }],
  };
  const registry = createFormatRegistry({ formats: [toy] });
  const detection = await registry.detect(
    fileTarget(new MemorySource(new TextEncoder().encode('TOY!...'), 'a.toy')),
  );
  expect(detection.format).toBe('toy');
  expect(registry.formats[0].id).toBe('toy');
});

it('detects an .h5ad (HDF5 signature) as convertible, loads its read-only plugin, and converts it to SCDL', async () => {
  const registry = createFormatRegistry();
  const head = new Uint8Array(64);
  head.set([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
  const detection = await registry.detect(fileTarget(new MemorySource(head, 'cells.h5ad')));
  expect(detection).toMatchObject({ format: 'h5ad', role: 'convertible' });
  expect((await registry.load('h5ad')).id).toBe('h5ad');
  expect(registry.converter('h5ad', 'scdl')?.id).toBe('h5ad-to-scdl');
  expect(typeof (await registry.converter('h5ad', 'scdl')?.load())?.convert).toBe('function');
});
