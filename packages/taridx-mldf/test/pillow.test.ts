/**
 * JPEG pixels must be what training code sees: Pillow's default decode (`Image.open(f)`,
 * libjpeg-turbo, mode RGB or L). Pillow writes baseline and progressive JPEGs at 4:4:4, 4:2:2,
 * 4:2:0 and greyscale, decodes them, and reports a hash of its pixels; the converter's decoder
 * must give the same hash for each. Needs Python with Pillow (tests/python-requirements.txt,
 * which `.ci/run` installs).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { describeWith, PYTHON, pythonModules } from '@binscope/testkit';
import { expect, it } from 'vitest';
import { decodeImage } from '../src/index.js';

interface PillowCase {
  name: string;
  jpeg: string;
  mode: string;
  width: number;
  height: number;
  sampling: number;
  progressive: boolean;
  sha256: string;
}

// Smooth gradients, edges and noise, so that chroma upsampling and the IDCT both show.
const SCRIPT = `
import base64, hashlib, io, json, random
from PIL import Image, ImageDraw, ImageFile, JpegImagePlugin
ImageFile.MAXBLOCK = 1 << 24
random.seed(7)
def picture(w, h):
    im = Image.merge('RGB', (
        Image.linear_gradient('L').resize((w, h)),
        Image.effect_noise((w, h), 40).convert('L'),
        Image.radial_gradient('L').resize((w, h)),
    ))
    d = ImageDraw.Draw(im)
    for _ in range(12):
        x, y = random.randrange(w), random.randrange(h)
        d.rectangle([x, y, x + w // 5, y + h // 7], fill=tuple(random.randrange(256) for _ in range(3)))
    return im
out = []
for w, h in ((61, 47), (256, 160)):
    base = picture(w, h)
    for mode, subsampling in (('444', 0), ('422', 1), ('420', 2), ('grey', None)):
        for progressive in (False, True):
            for quality in (75, 95):
                im = base.convert('L') if mode == 'grey' else base
                kw = dict(quality=quality, progressive=progressive)
                if subsampling is not None:
                    kw['subsampling'] = subsampling
                buf = io.BytesIO()
                im.save(buf, 'JPEG', **kw)
                data = buf.getvalue()
                back = Image.open(io.BytesIO(data))
                back.load()
                out.append(dict(
                    name=f"{mode} {'progressive' if progressive else 'baseline'} q{quality} {w}x{h}",
                    jpeg=base64.b64encode(data).decode(),
                    mode=back.mode, width=back.width, height=back.height,
                    sampling=JpegImagePlugin.get_sampling(back),
                    progressive=bool(back.info.get('progressive')),
                    sha256=hashlib.sha256(back.tobytes()).hexdigest(),
                ))
print(json.dumps(out))
`;

const place = { file: 'pillow.tar', offset: 0, key: 'k', ext: 'jpg' };
/** Pillow's get_sampling: -1 for greyscale, 0 for 4:4:4, 1 for 4:2:2, 2 for 4:2:0. */
const SAMPLING: Record<string, number> = { grey: -1, '444': 0, '422': 1, '420': 2 };

describeWith(pythonModules(['PIL']), 'JPEG decode against Pillow', () => {
  const cases = (): PillowCase[] =>
    JSON.parse(execFileSync(PYTHON, ['-c', SCRIPT], { encoding: 'utf8', maxBuffer: 64 << 20 }));

  it('gives Pillow-identical pixels for baseline and progressive 4:4:4, 4:2:2, 4:2:0 and greyscale JPEGs', async () => {
    const all = cases();
    expect(all).toHaveLength(32);
    const results: string[] = [];
    for (const c of all) {
      // Pillow wrote what the case says it is.
      expect(c.sampling, c.name).toBe(SAMPLING[c.name.split(' ')[0]]);
      expect(c.progressive, c.name).toBe(c.name.includes('progressive'));
      const image = await decodeImage(new Uint8Array(Buffer.from(c.jpeg, 'base64')), place);
      expect([image.width, image.height, image.channels], c.name).toEqual([
        c.width,
        c.height,
        c.mode === 'L' ? 1 : 3,
      ]);
      const got = createHash('sha256').update(image.pixels).digest('hex');
      results.push(`${got === c.sha256 ? 'same' : 'DIFFERENT'}  ${c.name} (Pillow mode ${c.mode})`);
    }
    expect(
      results.filter((r) => !r.startsWith('same')),
      results.join('\n'),
    ).toEqual([]);
  });
});
