/**
 * Device facts, in one place: the targets bloomforge knows, their block RAM primitive (bits and
 * width x depth modes), the capacity used for fit checks, the Yosys synthesis command, the cell
 * names that count as LUTs, flip-flops, block RAMs and DSPs in Yosys's `stat`, and the
 * nextpnr-ice40 device arguments. Used by the planners, the fit check, `synth` and the tests.
 */
export type Target = 'ice40-hx8k' | 'ice40-up5k' | 'ecp5' | 'xilinx';
export const TARGETS: readonly Target[] = ['ice40-hx8k', 'ice40-up5k', 'ecp5', 'xilinx'];
export const DEFAULT_TARGET: Target = 'ice40-hx8k';

export interface BlockRam {
  /** The primitive Yosys maps memories to. */
  primitive: string;
  /** Data bits of one block (parity bits not counted). */
  bits: number;
  /** Aspect ratios, [width, depth], widest first. */
  modes: readonly (readonly [number, number])[];
}

export interface Device {
  target: Target;
  /** The Yosys command that synthesises for this part. */
  synth: 'synth_ice40' | 'synth_ecp5' | 'synth_xilinx';
  bram: BlockRam;
  /** What the part holds, for the fit check; null where the target is a family of parts. */
  capacity: { luts: number; ffs: number; brams: number } | null;
  /** Cell names in Yosys's `stat` for each resource. */
  cells: { lut: RegExp; ff: RegExp; bram: RegExp; dsp: RegExp };
  /** nextpnr-ice40 device arguments; null where there is no place-and-route here. */
  pnr: readonly string[] | null;
  /** User I/O pins of the package placed (`pnr`); null without place-and-route. */
  pins: number | null;
}

// iCE40 SB_RAM40_4K (iCE40 LP/HX and UltraPlus data sheets): 4 Kbit, one read and one write port.
const SB_RAM40_4K: BlockRam = {
  primitive: 'SB_RAM40_4K',
  bits: 4096,
  modes: [
    [16, 256],
    [8, 512],
    [4, 1024],
    [2, 2048],
  ],
};
const ICE40_CELLS = { lut: /^SB_LUT4$/, ff: /^SB_DFF/, bram: /^SB_RAM40_4K$/, dsp: /^SB_MAC16$/ };

export const DEVICES: Readonly<Record<Target, Device>> = {
  'ice40-hx8k': {
    target: 'ice40-hx8k',
    synth: 'synth_ice40',
    bram: SB_RAM40_4K,
    capacity: { luts: 7680, ffs: 7680, brams: 32 },
    cells: ICE40_CELLS,
    pnr: ['--hx8k', '--package', 'ct256'],
    // iCE40 LP/HX family data sheet (Lattice DS1040), the HX8K in the CT256 package.
    pins: 206,
  },
  'ice40-up5k': {
    target: 'ice40-up5k',
    synth: 'synth_ice40',
    bram: SB_RAM40_4K,
    capacity: { luts: 5280, ffs: 5280, brams: 30 },
    cells: ICE40_CELLS,
    pnr: ['--up5k', '--package', 'sg48'],
    // iCE40 UltraPlus family data sheet (Lattice FPGA-DS-02008), the UP5K in the SG48 package.
    pins: 39,
  },
  // ECP5 DP16KD: 16 Kbit of data (18 Kbit with parity).
  ecp5: {
    target: 'ecp5',
    synth: 'synth_ecp5',
    bram: {
      primitive: 'DP16KD',
      bits: 16384,
      modes: [
        [36, 512],
        [18, 1024],
        [9, 2048],
        [4, 4096],
        [2, 8192],
        [1, 16384],
      ],
    },
    capacity: null,
    cells: { lut: /^LUT4$/, ff: /^TRELLIS_FF$/, bram: /^DP16KD$/, dsp: /^MULT18X18D$/ },
    pnr: null,
    pins: null,
  },
  // Xilinx 7-series RAMB36E1: 32 Kbit of data (36 Kbit with parity).
  xilinx: {
    target: 'xilinx',
    synth: 'synth_xilinx',
    bram: {
      primitive: 'RAMB36E1',
      bits: 32768,
      modes: [
        [72, 512],
        [36, 1024],
        [18, 2048],
        [9, 4096],
        [4, 8192],
        [2, 16384],
        [1, 32768],
      ],
    },
    capacity: null,
    cells: { lut: /^LUT[1-6]$/, ff: /^FD[A-Z]*$/, bram: /^RAMB(18|36)E1$/, dsp: /^DSP48E1$/ },
    pnr: null,
    pins: null,
  },
};

export function device(target: Target): Device {
  return DEVICES[target];
}

/** The widest data port of the target's block RAM. */
export function maxBramWidth(target: Target): number {
  return DEVICES[target].bram.modes[0]![0];
}

/**
 * Block RAM primitives for one width x depth memory: the fewest over the primitive's modes (a
 * lower bound on what Yosys maps; on iCE40 the presets' memories map to exactly this many).
 */
export function bramBlocks(target: Target, width: number, depth: number): number {
  return Math.min(...DEVICES[target].bram.modes.map(([w, n]) => Math.ceil(width / w) * Math.ceil(depth / n)));
}

/** The Yosys script `synth` and the tests run: read, synthesise, check (failing on any problem), stat. */
export function yosysScript(
  target: Target,
  verilogFile: string,
  top: string,
  jsonOut?: string,
  upToLuts = false,
): string {
  const d = DEVICES[target];
  // upToLuts: stop before LUT mapping (ABC), after memories, flip-flops and gates are mapped.
  const run = upToLuts ? ' -run :map_luts' : '';
  return `read_verilog ${verilogFile}; ${d.synth} -top ${top}${run}${jsonOut ? ` -json ${jsonOut}` : ''}; check -assert; stat`;
}
