// Generates a tiny BERT-shaped ONNX feature-extraction model plus its tokenizer files, in pure Node,
// so tests load a real model through transformers.js without a model hub (dependency-notes Appendix B).
// CLI: node scripts/make-tiny-bert.cjs OUT_DIR [--hidden 32] [--seed 1]   Module: makeTinyBert(outDir, opts)
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { onnx } = require("onnx-proto");

const MAX_POSITIONS = 512;
const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
const WORDS = ("the a an of to and in is it for on with as at by from that this be are was were not no yes " +
  "i you he she we they my your our their me him her us them what where when why how which who " +
  "hello world search index vector query document memory store key keys mug blue red green coffee cup " +
  "bought broke buy new old today yesterday tomorrow home office shoe cabinet flower pot put moved " +
  "model embedding text test data time day week year user assistant tool result fact").split(" ");
const ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const PUNCT_ASCII = ".,!?;:'\"()[]{}-_/@#$%&*+=<>|\\~`^";
const PUNCT_CJK = "，。！？、；：“”‘’（）《》【】—…·「」";
// The whole CJK Unified Ideographs basic block: like bert-base-chinese (which bge-small-zh uses),
// every common Chinese character is one token, so no Chinese test text falls back to [UNK].
const CJK_FIRST = 0x4e00;
const CJK_LAST = 0x9fa5;

function buildVocab() {
  const cjk = Array.from({ length: CJK_LAST - CJK_FIRST + 1 }, (_, i) => String.fromCodePoint(CJK_FIRST + i));
  const tokens = [...SPECIALS, ...WORDS, ...ALNUM, ...Array.from(ALNUM, (c) => "##" + c), ...PUNCT_ASCII, ...PUNCT_CJK, ...cjk];
  const vocab = {};
  let size = 0;
  for (const token of tokens) if (!(token in vocab)) vocab[token] = size++;
  return vocab;
}

// mulberry32: a seeded generator whose integer arithmetic is exact in JavaScript, so a seed gives
// byte-identical weights on every platform (the LCG in Appendix B overflows 2^53 and rounds).
function seededUniform(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}

function buildModelBytes(vocabSize, hidden, seed) {
  const next = seededUniform(seed);
  const weights = (n, scale) => Float32Array.from({ length: n }, () => next() * scale);
  const T = onnx.TensorProto.DataType;
  const floats = (name, dims, data) => onnx.TensorProto.create({ name, dims, dataType: T.FLOAT, rawData: new Uint8Array(data.buffer) });
  const int64s = (name, dims, values) =>
    onnx.TensorProto.create({ name, dims, dataType: T.INT64, rawData: new Uint8Array(BigInt64Array.from(values.map(BigInt)).buffer) });
  const node = (opType, input, output, attrs = {}) =>
    onnx.NodeProto.create({
      opType, input, output, name: `${output[0]}_node`,
      attribute: Object.entries(attrs).map(([name, i]) => onnx.AttributeProto.create({ name, i, type: onnx.AttributeProto.AttributeType.INT })),
    });
  const valueInfo = (name, elemType, shape) =>
    onnx.ValueInfoProto.create({
      name,
      type: { tensorType: { elemType, shape: { dim: shape.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })) } } },
    });
  // Every initializer is used by a node: ORT warns about (and strips) unused ones.
  const graph = onnx.GraphProto.create({
    name: "tiny_bert",
    initializer: [
      floats("word_emb", [vocabSize, hidden], weights(vocabSize * hidden, 1)),
      floats("pos_emb", [MAX_POSITIONS, hidden], weights(MAX_POSITIONS * hidden, 0.1)),
      floats("type_emb", [2, hidden], weights(2 * hidden, 0.1)),
      floats("W", [hidden, hidden], weights(hidden * hidden, 2 / Math.sqrt(hidden))),
      floats("b", [hidden], new Float32Array(hidden)),
      int64s("zero", [], [0]), int64s("one", [], [1]), int64s("axes_last", [1], [-1]),
    ],
    node: [
      node("Gather", ["word_emb", "input_ids"], ["we"], { axis: 0 }),
      node("Gather", ["type_emb", "token_type_ids"], ["te"], { axis: 0 }),
      node("Shape", ["input_ids"], ["shp"]),
      node("Gather", ["shp", "one"], ["seqlen"], { axis: 0 }),
      node("Range", ["zero", "seqlen", "one"], ["pos_ids"]),
      node("Gather", ["pos_emb", "pos_ids"], ["pe"], { axis: 0 }),
      node("Add", ["we", "te"], ["e1"]), node("Add", ["e1", "pe"], ["e2"]),
      node("MatMul", ["e2", "W"], ["m"]), node("Add", ["m", "b"], ["mb"]), node("Tanh", ["mb"], ["h"]), node("Add", ["h", "e2"], ["hr"]),
      node("Cast", ["attention_mask"], ["maskf"], { to: T.FLOAT }),
      node("Unsqueeze", ["maskf", "axes_last"], ["mask3"]),
      node("Mul", ["hr", "mask3"], ["last_hidden_state"]),
    ],
    input: ["input_ids", "attention_mask", "token_type_ids"].map((n) => valueInfo(n, T.INT64, ["batch_size", "sequence_length"])),
    output: [valueInfo("last_hidden_state", T.FLOAT, ["batch_size", "sequence_length", hidden])],
  });
  const model = onnx.ModelProto.create({ irVersion: 7, producerName: "dsh-dream-tiny-bert", opsetImport: [{ domain: "", version: 13 }], graph });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocab) {
  const added = (t) => ({ id: vocab[t], content: t, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const special = (t, typeId = 0) => ({ SpecialToken: { id: t, type_id: typeId } });
  const sequence = (id, typeId) => ({ Sequence: { id, type_id: typeId } });
  return {
    version: "1.0", truncation: null, padding: null, added_tokens: SPECIALS.map(added),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [special("[CLS]"), sequence("A", 0), special("[SEP]")],
      pair: [special("[CLS]"), sequence("A", 0), special("[SEP]"), sequence("B", 1), special("[SEP]", 1)],
      special_tokens: Object.fromEntries(["[CLS]", "[SEP]"].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
}

/** Writes config.json, tokenizer.json, tokenizer_config.json and onnx/model{,_quantized}.onnx into outDir. */
function makeTinyBert(outDir, { hidden = 32, seed = 1 } = {}) {
  if (!Number.isInteger(hidden) || hidden < 1) throw new Error(`hidden must be a positive integer, got ${hidden}`);
  if (!Number.isInteger(seed)) throw new Error(`seed must be an integer, got ${seed}`);
  const vocab = buildVocab();
  const vocabSize = Object.keys(vocab).length;
  fs.mkdirSync(path.join(outDir, "onnx"), { recursive: true });
  const bytes = buildModelBytes(vocabSize, hidden, seed);
  // transformers.js v2 loads model_quantized.onnx by default; the same float graph serves both names.
  for (const name of ["model.onnx", "model_quantized.onnx"]) fs.writeFileSync(path.join(outDir, "onnx", name), bytes);
  // pad_token and model_max_length are both required, or padded batches fail (dependency-notes §2.4).
  const tokenizerConfig = {
    tokenizer_class: "BertTokenizer", model_max_length: MAX_POSITIONS, do_lower_case: true,
    pad_token: "[PAD]", unk_token: "[UNK]", cls_token: "[CLS]", sep_token: "[SEP]", mask_token: "[MASK]",
  };
  const files = [
    ["tokenizer.json", tokenizerJson(vocab)],
    ["config.json", { model_type: "bert", hidden_size: hidden, vocab_size: vocabSize, max_position_embeddings: MAX_POSITIONS }],
    ["tokenizer_config.json", tokenizerConfig],
  ];
  for (const [name, value] of files) fs.writeFileSync(path.join(outDir, name), JSON.stringify(value));
  return { dir: outDir, hidden, vocabSize };
}

function parseCli(argv) {
  const [outDir, ...rest] = argv;
  const options = {};
  for (let i = 0; i < rest.length; i += 2) {
    const flag = rest[i].replace(/^--/, "");
    if (flag !== "hidden" && flag !== "seed") throw new Error(`unknown option ${rest[i]}`);
    options[flag] = Number(rest[i + 1]);
  }
  if (!outDir || outDir.startsWith("--")) throw new Error("usage: node scripts/make-tiny-bert.cjs OUT_DIR [--hidden 32] [--seed 1]");
  return { outDir, options };
}

if (require.main === module) {
  try {
    const { outDir, options } = parseCli(process.argv.slice(2));
    const made = makeTinyBert(outDir, options);
    console.log(`tiny BERT written to ${made.dir} (hidden ${made.hidden}, vocab ${made.vocabSize})`);
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
}

module.exports = { makeTinyBert };
