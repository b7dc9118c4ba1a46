export function intakeFaults(args: readonly string[], devVars: string, wranglerToml: string): string;
export function faultLines(faults: string): string[];
