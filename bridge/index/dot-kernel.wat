;; Int8 x int16 dot-product scan for the dense index: one i32 dot per stored code row.
;; Rows are `stride` bytes (a multiple of 32, zero-padded); the query is `stride` int16 values.
;; `scan` reads rows [0, count) in order; `gather` reads the rows listed in an i32 array (the ANN's probed lists).

(module
  ;; Shared, so that a worker thread can write the codes while an open goes on (checkpoint restore):
  ;; made and grown by the JS side (quantize.ts), up to the wasm32 ceiling.
  (import "env" "memory" (memory 1 65536 shared))

  ;; out[d] = sum_j codes[d][j] * query[j] for d in [0, count).
  ;; Exact in i32: the caller bounds 127 * sum|query| below 2^31.
  (func (export "scan")
    (param $query i32) (param $codes i32) (param $stride i32) (param $count i32) (param $out i32)
    (local $row i32) (local $rowEnd i32) (local $q i32) (local $outEnd i32)
    (local $a v128) (local $b v128) (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128)
    (local.set $row (local.get $codes))
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (br_if $done (i32.eqz (local.get $count)))
      (loop $rows
        (local.set $rowEnd (i32.add (local.get $row) (local.get $stride)))
        (local.set $q (local.get $query))
        (local.set $acc0 (v128.const i32x4 0 0 0 0))
        (local.set $acc1 (v128.const i32x4 0 0 0 0))
        (local.set $acc2 (v128.const i32x4 0 0 0 0))
        (local.set $acc3 (v128.const i32x4 0 0 0 0))
        ;; 32 code bytes per step, four independent accumulators to hide the dot latency.
        (loop $cols
          (local.set $a (v128.load (local.get $row)))
          (local.set $b (v128.load offset=16 (local.get $row)))
          (local.set $acc0 (i32x4.add (local.get $acc0)
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (v128.load (local.get $q)))))
          (local.set $acc1 (i32x4.add (local.get $acc1)
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (v128.load offset=16 (local.get $q)))))
          (local.set $acc2 (i32x4.add (local.get $acc2)
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $b)) (v128.load offset=32 (local.get $q)))))
          (local.set $acc3 (i32x4.add (local.get $acc3)
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $b)) (v128.load offset=48 (local.get $q)))))
          (local.set $row (i32.add (local.get $row) (i32.const 32)))
          (local.set $q (i32.add (local.get $q) (i32.const 64)))
          (br_if $cols (i32.lt_u (local.get $row) (local.get $rowEnd))))
        (local.set $acc0 (i32x4.add
          (i32x4.add (local.get $acc0) (local.get $acc1))
          (i32x4.add (local.get $acc2) (local.get $acc3))))
        (i32.store (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc0)) (i32x4.extract_lane 1 (local.get $acc0)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc0)) (i32x4.extract_lane 3 (local.get $acc0)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (br_if $rows (i32.lt_u (local.get $out) (local.get $outEnd))))))

  ;; out[i] = sum_j codes[rows[i]][j] * query[j] for i in [0, count), count a multiple of 8: the same dot as
  ;; `scan`, for listed rows. 8 rows are read side by side so their cache and TLB misses overlap.
  (func (export "gather")
    (param $query i32) (param $codes i32) (param $stride i32) (param $rows i32) (param $count i32) (param $out i32)
    (local $r0 i32) (local $r1 i32) (local $r2 i32) (local $r3 i32) (local $r4 i32) (local $r5 i32) (local $r6 i32) (local $r7 i32)
    (local $col i32) (local $q i32) (local $outEnd i32) (local $qlo v128) (local $qhi v128) (local $a v128)
    (local $acc0 v128) (local $acc1 v128) (local $acc2 v128) (local $acc3 v128) (local $acc4 v128) (local $acc5 v128) (local $acc6 v128) (local $acc7 v128)
    (local.set $outEnd (i32.add (local.get $out) (i32.shl (local.get $count) (i32.const 2))))
    (block $done
      (br_if $done (i32.eqz (local.get $count)))
      (loop $groups
        (local.set $r0 (i32.add (local.get $codes) (i32.mul (i32.load offset=0 (local.get $rows)) (local.get $stride))))
        (local.set $r1 (i32.add (local.get $codes) (i32.mul (i32.load offset=4 (local.get $rows)) (local.get $stride))))
        (local.set $r2 (i32.add (local.get $codes) (i32.mul (i32.load offset=8 (local.get $rows)) (local.get $stride))))
        (local.set $r3 (i32.add (local.get $codes) (i32.mul (i32.load offset=12 (local.get $rows)) (local.get $stride))))
        (local.set $r4 (i32.add (local.get $codes) (i32.mul (i32.load offset=16 (local.get $rows)) (local.get $stride))))
        (local.set $r5 (i32.add (local.get $codes) (i32.mul (i32.load offset=20 (local.get $rows)) (local.get $stride))))
        (local.set $r6 (i32.add (local.get $codes) (i32.mul (i32.load offset=24 (local.get $rows)) (local.get $stride))))
        (local.set $r7 (i32.add (local.get $codes) (i32.mul (i32.load offset=28 (local.get $rows)) (local.get $stride))))
        (local.set $col (i32.const 0))
        (local.set $q (local.get $query))
        (local.set $acc0 (v128.const i32x4 0 0 0 0))
        (local.set $acc1 (v128.const i32x4 0 0 0 0))
        (local.set $acc2 (v128.const i32x4 0 0 0 0))
        (local.set $acc3 (v128.const i32x4 0 0 0 0))
        (local.set $acc4 (v128.const i32x4 0 0 0 0))
        (local.set $acc5 (v128.const i32x4 0 0 0 0))
        (local.set $acc6 (v128.const i32x4 0 0 0 0))
        (local.set $acc7 (v128.const i32x4 0 0 0 0))
        ;; 16 code bytes of each row per step, against 16 int16 query values.
        (loop $cols
          (local.set $qlo (v128.load (local.get $q)))
          (local.set $qhi (v128.load offset=16 (local.get $q)))
          (local.set $a (v128.load (i32.add (local.get $r0) (local.get $col))))
          (local.set $acc0 (i32x4.add (local.get $acc0) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r1) (local.get $col))))
          (local.set $acc1 (i32x4.add (local.get $acc1) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r2) (local.get $col))))
          (local.set $acc2 (i32x4.add (local.get $acc2) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r3) (local.get $col))))
          (local.set $acc3 (i32x4.add (local.get $acc3) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r4) (local.get $col))))
          (local.set $acc4 (i32x4.add (local.get $acc4) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r5) (local.get $col))))
          (local.set $acc5 (i32x4.add (local.get $acc5) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r6) (local.get $col))))
          (local.set $acc6 (i32x4.add (local.get $acc6) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $a (v128.load (i32.add (local.get $r7) (local.get $col))))
          (local.set $acc7 (i32x4.add (local.get $acc7) (i32x4.add
            (i32x4.dot_i16x8_s (i16x8.extend_low_i8x16_s (local.get $a)) (local.get $qlo))
            (i32x4.dot_i16x8_s (i16x8.extend_high_i8x16_s (local.get $a)) (local.get $qhi)))))
          (local.set $col (i32.add (local.get $col) (i32.const 16)))
          (local.set $q (i32.add (local.get $q) (i32.const 32)))
          (br_if $cols (i32.lt_u (local.get $col) (local.get $stride))))
        (i32.store offset=0 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc0)) (i32x4.extract_lane 1 (local.get $acc0)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc0)) (i32x4.extract_lane 3 (local.get $acc0)))))
        (i32.store offset=4 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc1)) (i32x4.extract_lane 1 (local.get $acc1)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc1)) (i32x4.extract_lane 3 (local.get $acc1)))))
        (i32.store offset=8 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc2)) (i32x4.extract_lane 1 (local.get $acc2)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc2)) (i32x4.extract_lane 3 (local.get $acc2)))))
        (i32.store offset=12 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc3)) (i32x4.extract_lane 1 (local.get $acc3)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc3)) (i32x4.extract_lane 3 (local.get $acc3)))))
        (i32.store offset=16 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc4)) (i32x4.extract_lane 1 (local.get $acc4)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc4)) (i32x4.extract_lane 3 (local.get $acc4)))))
        (i32.store offset=20 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc5)) (i32x4.extract_lane 1 (local.get $acc5)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc5)) (i32x4.extract_lane 3 (local.get $acc5)))))
        (i32.store offset=24 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc6)) (i32x4.extract_lane 1 (local.get $acc6)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc6)) (i32x4.extract_lane 3 (local.get $acc6)))))
        (i32.store offset=28 (local.get $out) (i32.add
          (i32.add (i32x4.extract_lane 0 (local.get $acc7)) (i32x4.extract_lane 1 (local.get $acc7)))
          (i32.add (i32x4.extract_lane 2 (local.get $acc7)) (i32x4.extract_lane 3 (local.get $acc7)))))
        (local.set $rows (i32.add (local.get $rows) (i32.const 32)))
        (local.set $out (i32.add (local.get $out) (i32.const 32)))
        (br_if $groups (i32.lt_u (local.get $out) (local.get $outEnd))))))
)
