/** The types of scripts/chromium.cjs, for the TypeScript that imports it. */
export interface FoundChromium {
  executablePath: string;
  /** CHROMIUM_PATH, a `chromium` on PATH, or the one the npm package @sparticuz/chromium carries. */
  from: 'CHROMIUM_PATH' | 'PATH' | 'npm';
  /** Added to the browser's environment. */
  env: Record<string, string>;
}

export function findChromium(): Promise<FoundChromium>;
export function systemChromium(): Omit<FoundChromium, 'env'> | undefined;
export function unpack(bin: string, directory: string): Promise<void>;
