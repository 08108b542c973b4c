import { useEffect, useRef } from 'react';

/** Draws raw HWC pixels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA channels) on a canvas, scaled up when tiny. */
export function ImageCanvas({
  pixels,
  width,
  height,
  channels,
  label,
}: {
  pixels: Uint8Array;
  width: number;
  height: number;
  channels: number;
  label: string;
}) {
  const ref = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const canvas = ref.current;
    const context = canvas?.getContext('2d');
    if (!canvas || !context || width <= 0 || height <= 0) return;
    const image = context.createImageData(width, height);
    const out = image.data;
    for (let p = 0; p < width * height; p++) {
      const i = p * channels;
      const gray = pixels[i] ?? 0;
      out[p * 4] = channels >= 3 ? pixels[i] : gray;
      out[p * 4 + 1] = channels >= 3 ? pixels[i + 1] : gray;
      out[p * 4 + 2] = channels >= 3 ? pixels[i + 2] : gray;
      out[p * 4 + 3] = channels === 4 ? pixels[i + 3] : channels === 2 ? pixels[i + 1] : 255;
    }
    context.putImageData(image, 0, 0);
  }, [pixels, width, height, channels]);
  const scale = Math.max(1, Math.floor(128 / Math.max(width, height, 1)));
  return (
    <canvas
      ref={ref}
      width={width}
      height={height}
      style={{ width: width * scale, height: height * scale }}
      role="img"
      aria-label={label}
      data-testid="sample-image"
    />
  );
}
