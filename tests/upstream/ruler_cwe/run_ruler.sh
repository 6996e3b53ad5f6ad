#!/bin/bash
# Runs RULER's unchanged prepare.py for task cwe and gzips its validation.jsonl (mtime 0).
# usage: run_ruler.sh RULER_CHECKOUT LLAMA2_HF_DIR OUT_DIR TOKENIZER(llama2|cl100k) LENGTH ROWS SEED NAME
set -euo pipefail
ruler=$1; llama=$2; out=$3; tok=$4; len=$5; rows=$6; seed=$7; name=$8
here=$(cd "$(dirname "$0")" && pwd)
gzip -dc "$here/english_words.json.gz" > "$ruler/scripts/data/synthetic/json/english_words.json"
if [ "$tok" = llama2 ]; then tt="--tokenizer_type hf --tokenizer_path $llama"
else tt="--tokenizer_type openai --tokenizer_path cl100k_base"; fi
mkdir -p "$NLTK_DATA/tokenizers/punkt"  # prepare.py only checks that punkt is there (cwe never uses it)
cd "$ruler/scripts/data"
python prepare.py --save_dir "$out/$name" --benchmark synthetic --task cwe $tt --max_seq_length "$len" \
    --model_template_type base --num_samples "$rows" --random_seed "$seed"
test "$(wc -l < "$out/$name/cwe/validation.jsonl")" = "$rows"  # prepare.py exits 0 when the script fails
gzip -n -c "$out/$name/cwe/validation.jsonl" > "$here/$name.jsonl.gz"
