import { useEffect, useRef } from 'react';

/**
 * Draws raw HWC pixels (1 gray, 2 gray+alpha, 3 RGB, 4 RGBA channels) on a canvas, shown at
 * most `max` CSS pixels on its longer side: tiny images are scaled up by whole steps (each
 * pixel a crisp square), large ones scaled down.
 */
export function ImageCanvas({
  pixels,
  width,
  height,
  channels,
  label,
  max = 128,
}: {
  pixels: Uint8Array;
  width: number;
  height: number;
  channels: number;
  label: string;
  max?: number;
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
  const fit = max / Math.max(width, height, 1);
  const scale = fit >= 1 ? Math.floor(fit) : fit;
  return (
    <canvas
      ref={ref}
      className="image-value"
      width={width}
      height={height}
      style={{ width: width * scale, height: height * scale }}
      role="img"
      aria-label={label}
      data-testid="image-value"
    />
  );
}
