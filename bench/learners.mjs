// Two small learners for the benches that learn from labelled examples (blocks-learn.mjs,
// core-ceiling.mjs --learn): each takes [{ vector: Float64Array, label: 0 | 1 }] and returns a
// function from a vector to a probability. Deterministic: a fixed seed, a fixed order, no
// randomness in the trees.

/** Logistic regression by plain stochastic gradient descent, classes weighted to balance. */
export function trainLinear(examples, { epochs = 60, rate = 0.5, l2 = 1e-4, seed = 7 } = {}) {
  const size = examples[0].vector.length;
  const weights = new Float64Array(size);
  let bias = 0;
  // A fixed order, shuffled once by a seeded generator: the same model every run.
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const order = examples.map((_, index) => index);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const positives = examples.filter((example) => example.label === 1).length;
  const weightOf = (label) => (label === 1 ? examples.length / (2 * positives) : examples.length / (2 * (examples.length - positives)));
  for (let epoch = 0; epoch < epochs; epoch++) {
    const step = rate / (1 + epoch / 10);
    for (const index of order) {
      const { vector, label } = examples[index];
      let z = bias;
      for (let k = 0; k < size; k++) if (vector[k] !== 0) z += weights[k] * vector[k];
      const error = (1 / (1 + Math.exp(-z)) - label) * weightOf(label);
      bias -= step * error;
      for (let k = 0; k < size; k++) if (vector[k] !== 0) weights[k] -= step * (error * vector[k] + l2 * weights[k]);
    }
  }
  return (vector) => {
    let z = bias;
    for (let k = 0; k < size; k++) if (vector[k] !== 0) z += weights[k] * vector[k];
    return 1 / (1 + Math.exp(-z));
  };
}

/**
 * Gradient-boosted trees of depth 2 (logistic loss, 16 bins a feature, a fixed order): what a
 * linear score cannot say (short AND outside the prose, say).
 */
export function trainTrees(examples, { rounds = 150, rate = 0.1, bins = 16, minLeaf = 20 } = {}) {
  const size = examples[0].vector.length;
  // Bin edges per feature, from its values' quantiles.
  const edges = [];
  for (let k = 0; k < size; k++) {
    const values = examples.map((example) => example.vector[k]).sort((a, b) => a - b);
    const cut = new Set();
    for (let b = 1; b < bins; b++) cut.add(values[Math.floor((b * values.length) / bins)]);
    edges.push([...cut].sort((a, b) => a - b));
  }
  const binOf = (k, value) => {
    const list = edges[k];
    let bin = 0;
    while (bin < list.length && value > list[bin]) bin++;
    return bin;
  };
  const binned = examples.map((example) => Uint8Array.from({ length: size }, (_, k) => binOf(k, example.vector[k])));
  const labels = examples.map((example) => example.label);
  const positives = labels.filter((label) => label === 1).length;
  const prior = Math.log(positives / (labels.length - positives));
  const margin = new Float64Array(examples.length).fill(prior);
  const trees = [];
  /** The best split of `rows` on gradient and hessian sums: [feature, bin] or undefined. */
  const bestSplit = (rows, gradient, hessian) => {
    let best;
    let bestGain = 0;
    const totalG = rows.reduce((sum, row) => sum + gradient[row], 0);
    const totalH = rows.reduce((sum, row) => sum + hessian[row], 0);
    const score = (g, h) => (g * g) / (h + 1);
    for (let k = 0; k < size; k++) {
      if (edges[k].length === 0) continue;
      const g = new Float64Array(bins + 1);
      const h = new Float64Array(bins + 1);
      const n = new Uint32Array(bins + 1);
      for (const row of rows) {
        const bin = binned[row][k];
        g[bin] += gradient[row];
        h[bin] += hessian[row];
        n[bin]++;
      }
      let leftG = 0;
      let leftH = 0;
      let leftN = 0;
      for (let bin = 0; bin < edges[k].length; bin++) {
        leftG += g[bin];
        leftH += h[bin];
        leftN += n[bin];
        if (leftN < minLeaf || rows.length - leftN < minLeaf) continue;
        const gain = score(leftG, leftH) + score(totalG - leftG, totalH - leftH) - score(totalG, totalH);
        if (gain > bestGain) {
          bestGain = gain;
          best = [k, bin];
        }
      }
    }
    return best;
  };
  const leafValue = (rows, gradient, hessian) => -rows.reduce((sum, row) => sum + gradient[row], 0) / (rows.reduce((sum, row) => sum + hessian[row], 0) + 1);
  const all = examples.map((_, index) => index);
  for (let round = 0; round < rounds; round++) {
    const gradient = new Float64Array(examples.length);
    const hessian = new Float64Array(examples.length);
    for (let i = 0; i < examples.length; i++) {
      const p = 1 / (1 + Math.exp(-margin[i]));
      gradient[i] = p - labels[i];
      hessian[i] = Math.max(1e-6, p * (1 - p));
    }
    const grow = (rows, depth) => {
      const split = depth < 2 ? bestSplit(rows, gradient, hessian) : undefined;
      if (!split) return { value: rate * leafValue(rows, gradient, hessian) };
      const [k, bin] = split;
      const left = rows.filter((row) => binned[row][k] <= bin);
      const right = rows.filter((row) => binned[row][k] > bin);
      return { k, threshold: edges[k][bin], left: grow(left, depth + 1), right: grow(right, depth + 1) };
    };
    const tree = grow(all, 0);
    trees.push(tree);
    const predict = (node, vector) => (node.value !== undefined ? node.value : predict(vector[node.k] <= node.threshold ? node.left : node.right, vector));
    for (let i = 0; i < examples.length; i++) margin[i] += predict(tree, examples[i].vector);
  }
  const predict = (node, vector) => (node.value !== undefined ? node.value : predict(vector[node.k] <= node.threshold ? node.left : node.right, vector));
  return (vector) => 1 / (1 + Math.exp(-trees.reduce((sum, tree) => sum + predict(tree, vector), prior)));
}
