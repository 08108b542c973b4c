import { type DirectorySource, directoryTarget, isBinscopeError, MemoryDirectory } from '@binscope/core';
import { S3Client, S3Directory, S3DirectorySink } from '@binscope/core/s3';
import { createBucket, type LocalS3, startLocalS3 } from '@binscope/testkit/s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { denseToCsr, scdlFormat, scdlNearMiss, scdlPlugin, writeScdlToMemory } from '../src/index.js';

const INCOMPLETE = /incomplete archive \(no header\.sch\)/;

async function archiveFiles(): Promise<Map<string, Uint8Array>> {
  const { directory, result } = await writeScdlToMemory(
    denseToCsr([
      [1, 0, 2],
      [0, 3, 0],
    ]),
  );
  return new Map(result.files.map((name) => [name, directory.get(name)!]));
}

/** What every reader of a folder says about an archive without its header.sch. */
async function expectIncomplete(directory: DirectorySource): Promise<void> {
  const target = directoryTarget(directory);
  expect(await scdlFormat.detect!(target, new Uint8Array(0))).toBe(0);
  const near = await scdlNearMiss(target);
  expect(near?.id).toBe('scdl');
  expect(near?.message).toMatch(INCOMPLETE);
  const report = await scdlPlugin.validate(target);
  expect(report.valid).toBe(false);
  expect(report.errors[0]).toMatchObject({ code: 'Truncated', file: 'header.sch' });
  expect(report.errors[0].message).toMatch(INCOMPLETE);
  const error = await scdlPlugin.open(target).catch((e: unknown) => e);
  expect(isBinscopeError(error, 'Truncated')).toBe(true);
  expect((error as Error).message).toMatch(INCOMPLETE);
}

describe('an SCDL archive without header.sch', () => {
  it('is named an incomplete archive, by detection, validate and open', async () => {
    const files = await archiveFiles();
    files.delete('header.sch');
    await expectIncomplete(new MemoryDirectory(files));
  });

  it('a folder with one SCDL-like name only is not taken for an archive', async () => {
    const target = directoryTarget(
      new MemoryDirectory({ 'data.npy': new Uint8Array(8), 'notes.txt': new Uint8Array(1) }),
    );
    expect(await scdlNearMiss(target)).toBeUndefined();
  });

  describe('written to an S3 prefix by a writer that never finished', () => {
    let s3: LocalS3;
    beforeAll(async () => {
      s3 = await startLocalS3();
      await createBucket(s3, 'cells');
    }, 30_000);
    afterAll(async () => {
      await s3?.stop();
    });

    it('reads as incomplete until the marker is written, then as the archive', async () => {
      const client = new S3Client({
        accessKeyId: 'S3RVER',
        secretAccessKey: 'S3RVER',
        endpoint: s3.endpoint,
        forcePathStyle: true,
      });
      const sink = await S3DirectorySink.create(client, 's3://cells/run/', { marker: 'header.sch' });
      for (const [name, bytes] of await archiveFiles()) await sink.write(name, bytes);
      // A writer killed here (no commit, no abort) leaves exactly this prefix.
      await expectIncomplete(new S3Directory(client, 's3://cells/run/'));
      await sink.commit();
      const target = directoryTarget(new S3Directory(client, 's3://cells/run/'));
      expect(await scdlFormat.detect!(target, new Uint8Array(0))).toBeGreaterThan(0);
      expect((await scdlPlugin.validate(target)).valid).toBe(true);
    });
  });
});
