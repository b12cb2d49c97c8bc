// The image types a report can inline as a `data:` URI: raster only (an SVG is a document of its own).
/** Whether `contentType` is a raster image the HTML report shows inline. */
export function isRasterImage(contentType: string | null | undefined): boolean {
  return /^image\/(png|jpeg|webp)$/.test(contentType ?? '');
}
