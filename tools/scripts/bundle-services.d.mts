// Types of bundle-services.mjs for its spec.
export declare const SERVICES: readonly string[];
export declare const ALWAYS_EXTERNAL: readonly string[];
export declare function bundlePath(service: string): string;
export declare function keepClassNamesOnly(text: string, file: string): string;
export declare function bundleEntry(entry: string, outfile: string): Promise<void>;
export declare function bundleServices(services?: readonly string[]): Promise<void>;
