/** The SB_RAM40_4K aspect ratios (width x depth, 4 Kbit each). */
const ICE40_RAM_MODES: readonly (readonly [number, number])[] = [
  [16, 256],
  [8, 512],
  [4, 1024],
  [2, 2048],
];

/**
 * SB_RAM40_4K blocks for one width x depth memory: the fewest over the four aspect ratios (a
 * lower bound on what Yosys maps; the presets' memories map to exactly this many).
 */
export function ice40Blocks(width: number, depth: number): number {
  return Math.min(...ICE40_RAM_MODES.map(([w, n]) => Math.ceil(width / w) * Math.ceil(depth / n)));
}
