/** The package version, written into generated files (kept equal to package.json by a test). */
export const VERSION = '0.1.0';
