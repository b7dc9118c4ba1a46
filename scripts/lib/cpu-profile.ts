// Reading a V8 CPU profile (DevTools' Profiler.stop): CPU per function, its
// own code and with everything it called, for `npm run profile`.

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The profile's top functions by self and inclusive time, as printable lines. */
export function profileReport(profile: CpuProfile, what: string, count: number, top = 25): string[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const label = (node: ProfileNode) =>
    `${node.callFrame.functionName || "(anonymous)"} ${node.callFrame.url.split("/").pop() ?? ""}:${node.callFrame.lineNumber + 1}`;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let active = 0;
  profile.samples.forEach((id, index) => {
    const micros = profile.timeDeltas[index] ?? 0;
    const node = nodes.get(id);
    if (!node || node.callFrame.functionName === "(idle)") return;
    active += micros;
    self.set(label(node), (self.get(label(node)) ?? 0) + micros);
    const seen = new Set<string>();
    for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
      const frame = nodes.get(current);
      if (!frame) break;
      const name = label(frame);
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + micros);
      seen.add(name);
    }
  });
  const lines = (table: Map<string, number>) =>
    [...table]
      .filter(([name]) => !name.startsWith("(root)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(
        ([name, micros]) =>
          `  ${(micros / 1000).toFixed(1).padStart(8)} ms ${((100 * micros) / active).toFixed(1).padStart(5)}%  ${name}`,
      );
  return [
    `\n${what} x ${count}: ${(active / 1000).toFixed(0)} ms of CPU sampled in the isolate, ${(active / 1000 / count).toFixed(2)} ms per call`,
    `\nself time (the function's own code):`,
    ...lines(self),
    `\ninclusive time (with everything it called):`,
    ...lines(inclusive),
  ];
}
