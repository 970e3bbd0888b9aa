//! Network, checkpoint and trainer behaviour (small nets, one libtorch thread).

use dojo_arch::architecture::{Architecture, AuxHeads, PolicyHead, PolicyHeadChoice};
use dojo_arch::precision::{Precision, PrecisionChoice};
use dojo_arch::train::TrainConfig;
use dojo_base::rng::Rng;
use dojo_game::GameSpec;
use dojo_net::autotune::DecisionCache;
use dojo_net::checkpoint::{self, CheckpointError};
use dojo_net::device::set_threads;
use dojo_net::folded::FoldedNetwork;
use dojo_net::model::Model;
use dojo_net::train::{Batch, Trainer, TrainingPrecision};
use rand::{RngExt, SeedableRng};

use dojo_net::device::Device;

fn arch(blocks: usize, channels: usize) -> Architecture {
    Architecture {
        game: GameSpec::connect4(),
        blocks,
        channels,
        input_channels: 9,
        height: 6,
        width: 7,
        actions: 7,
        value_hidden: 16,
        policy_head: PolicyHead::Fc,
        max_return: None,
        any_size: false,
        aux_heads: AuxHeads::default(),
    }
}

/// A Gomoku 9×9 network (4 planes, one move per cell) with the given policy head.
fn gomoku_arch(blocks: usize, channels: usize, policy_head: PolicyHead) -> Architecture {
    Architecture {
        game: "gomoku:9".parse().unwrap(),
        blocks,
        channels,
        input_channels: 4,
        height: 9,
        width: 9,
        actions: 81,
        value_hidden: 16,
        policy_head,
        max_return: None,
        any_size: false,
        aux_heads: AuxHeads::default(),
    }
}

/// A fresh directory, removed with everything in it when the guard drops.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("dojo-net-{name}-")).tempdir().unwrap()
}

fn inputs(batch: usize, a: &Architecture, seed: u64) -> Vec<f32> {
    let mut rng = Rng::seed_from_u64(seed);
    (0..batch * a.input_len()).map(|_| if rng.random_ratio(1, 3) { 1.0 } else { 0.0 }).collect()
}

#[test]
fn forward_shapes_and_value_range() {
    set_threads(1);
    let model = Model::new(arch(2, 8), Device::Cpu);
    let x = inputs(5, model.arch(), 1);
    let mut p = vec![0.0; 5 * 7];
    let mut v = vec![9.0; 5];
    model.infer(&x, 5, &mut p, &mut v);
    assert!(v.iter().all(|v| (-1.0..=1.0).contains(v)), "{v:?}");
    assert!(p.iter().all(|x| x.is_finite()));
}

#[test]
fn checkpoint_round_trip_gives_identical_outputs() {
    set_threads(1);
    let tmp = temp_dir("roundtrip");
    let dir = tmp.path().to_path_buf();
    let model = Model::new(arch(1, 8), Device::Cpu);
    let path = dir.join("a.safetensors");
    let side = checkpoint::save(&model, &path, 42, 3, Some(&dir.join("parent.safetensors"))).unwrap();
    assert_eq!(side.step, 42);
    assert_eq!(side.parent.as_deref(), Some("parent.safetensors"));
    // Loadable by either name or the stem.
    for name in ["a.safetensors", "a.json", "a"] {
        let loaded = checkpoint::load(&dir.join(name), Device::Cpu, Some(&GameSpec::connect4())).unwrap();
        assert_eq!(loaded.sidecar, side);
        let x = inputs(3, model.arch(), 2);
        let (mut p1, mut v1, mut p2, mut v2) = (vec![0.0; 21], vec![0.0; 3], vec![0.0; 21], vec![0.0; 3]);
        model.infer(&x, 3, &mut p1, &mut v1);
        loaded.model.infer(&x, 3, &mut p2, &mut v2);
        assert_eq!(p1, p2);
        assert_eq!(v1, v2);
    }
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names.len(), 2, "no temp files left: {names:?}");
}

#[test]
fn a_copied_checkpoint_loads_and_a_damaged_one_is_not_copied() {
    set_threads(1);
    let tmp = temp_dir("copy");
    let dir = tmp.path().to_path_buf();
    let model = Model::new(arch(1, 8), Device::Cpu);
    let side = checkpoint::save(&model, &dir.join("v7.safetensors"), 70, 7, None).unwrap();
    assert_eq!(checkpoint::copy(&dir.join("v7"), &dir.join("best")).unwrap(), side);
    let loaded = checkpoint::load(&dir.join("best.safetensors"), Device::Cpu, None).unwrap();
    assert_eq!((loaded.sidecar.version, loaded.sidecar.step), (7, 70));

    // Damaged source weights: an error naming the file, and the old copy stays as it was.
    let bytes = std::fs::read(dir.join("v7.safetensors")).unwrap();
    std::fs::write(dir.join("v7.safetensors"), &bytes[..100]).unwrap();
    let err = checkpoint::copy(&dir.join("v7"), &dir.join("best")).unwrap_err().to_string();
    assert!(err.contains("v7.safetensors") && err.contains("truncated or replaced file?"), "{err}");
    assert!(checkpoint::load(&dir.join("best"), Device::Cpu, None).is_ok());
}

#[test]
fn the_weight_average_moves_a_fixed_share_towards_the_current_weights() {
    use dojo_net::average::WeightAverage;
    set_threads(1);
    let (a, b) = (Model::new(arch(1, 8), Device::Cpu), Model::new(arch(1, 8), Device::Cpu));
    let expect = |avg: &WeightAverage, share_of_b: f64| {
        let (va, vb) = (a.vs.variables(), b.vs.variables());
        for (name, t) in avg.model().vs.variables() {
            let want = &va[&name] * (1.0 - share_of_b) + &vb[&name] * share_of_b;
            let err = (&t - want).abs().max().double_value(&[]);
            assert!(err < 1e-6, "{name}: off by {err}");
        }
    };
    // Past its warm-up, each update moves 1/steps of the way: 1/4, then 1/4 of the rest.
    let mut avg = WeightAverage::new(&a, 4.0, 1_000).unwrap();
    expect(&avg, 0.0);
    avg.update(&b).unwrap();
    expect(&avg, 0.25);
    avg.update(&b).unwrap();
    expect(&avg, 0.25 + 0.75 * 0.25);
    // A fresh average warms up: its first update keeps only 1/10 of the start.
    let mut fresh = WeightAverage::new(&a, 100.0, 0).unwrap();
    fresh.update(&b).unwrap();
    expect(&fresh, 0.9);
    assert!(WeightAverage::new(&a, 0.5, 0).is_err());
}

#[test]
fn damaged_or_mismatched_checkpoints_are_clear_errors() {
    set_threads(1);
    let tmp = temp_dir("damaged");
    let dir = tmp.path().to_path_buf();
    let model = Model::new(arch(1, 8), Device::Cpu);
    let path = dir.join("m.safetensors");
    checkpoint::save(&model, &path, 1, 0, None).unwrap();
    let good = std::fs::read(&path).unwrap();

    // Wrong game.
    let err = checkpoint::load(&path, Device::Cpu, Some(&GameSpec::gomoku(9))).err().unwrap();
    assert!(matches!(err, CheckpointError::WrongGame { .. }), "{err}");
    assert!(err.to_string().contains("checkpoint is for connect4:7x6, not gomoku:9"), "{err}");

    // Truncated weights: the checksum catches it.
    std::fs::write(&path, &good[..good.len() / 2]).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(err.to_string().contains("truncated or replaced file?"), "{err}");

    // A consistent sidecar over garbage weights: the safetensors parser catches it.
    std::fs::write(&path, b"not a tensor file at all").unwrap();
    let mut side = checkpoint::read_sidecar(&path).unwrap();
    side.sha256 = dojo_base::util::sha256_hex(b"not a tensor file at all");
    std::fs::write(dir.join("m.json"), serde_json::to_vec(&side).unwrap()).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(err.to_string().contains("not a valid safetensors file"), "{err}");

    // Weights of another architecture under this sidecar: a shape error naming the tensor.
    let other = Model::new(arch(1, 16), Device::Cpu);
    let bytes = checkpoint::weights_bytes(&other).unwrap();
    std::fs::write(&path, &bytes).unwrap();
    side.sha256 = dojo_base::util::sha256_hex(&bytes);
    std::fs::write(dir.join("m.json"), serde_json::to_vec(&side).unwrap()).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(err.to_string().contains("does not match the architecture's"), "{err}");

    // A sidecar whose input planes are not the ones the game encodes (a checkpoint from a
    // build with other planes) is refused before any tensor is fed to it.
    let mut old = side.clone();
    old.architecture.input_channels = 12;
    std::fs::write(dir.join("m.json"), serde_json::to_vec(&old).unwrap()).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    let want = "the network takes 12 input planes of 7x6 and 7 moves, but connect4:7x6 is encoded as 9 planes";
    assert!(err.to_string().contains(want), "{err}");

    // A sidecar claiming a huge value head (found by fuzz/checkpoint): refused by the
    // architecture check instead of panicking when libtorch cannot allocate it.
    let mut huge = side.clone();
    huge.architecture.value_hidden = 1_000_000_000_000_000;
    std::fs::write(dir.join("m.json"), serde_json::to_vec(&huge).unwrap()).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(err.to_string().contains("value_hidden = 1000000000000000 must be within 1..=4096"), "{err}");
    assert!(huge.architecture.validate().is_err());
    huge.architecture.value_hidden = 0;
    assert!(huge.architecture.validate().unwrap_err().to_string().contains("value_hidden = 0"));

    // A sidecar claiming the biggest valid network next to these small weights is refused
    // before that network (about 600 M parameters) is allocated.
    let mut big = side.clone();
    big.architecture.blocks = 64;
    big.architecture.channels = 1024;
    std::fs::write(dir.join("m.json"), serde_json::to_vec(&big).unwrap()).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(
        err.to_string().contains("a 64x1024 network has at least 1207959552 parameters, but the weights hold at most"),
        "{err}"
    );

    // Unknown sidecar keys and missing files.
    std::fs::write(dir.join("m.json"), br#"{"format":"dojo-checkpoint/1","bogus":1}"#).unwrap();
    let err = checkpoint::load(&path, Device::Cpu, None).err().unwrap();
    assert!(err.to_string().contains("bad sidecar JSON"), "{err}");
    // A checkpoint that is not there is named as the user gave it, not by its sidecar.
    let nope = dir.join("nope.safetensors");
    let err = checkpoint::load(&nope, Device::Cpu, None).err().unwrap();
    assert_eq!(err.to_string(), format!("{} does not exist", nope.display()));
    let err = checkpoint::read_sidecar(&dir.join("nope")).err().unwrap();
    assert_eq!(err.to_string(), format!("{} does not exist", nope.display()), "a stem names the weights file");
    std::fs::copy(dir.join("m.safetensors"), dir.join("alone.safetensors")).unwrap();
    let err = checkpoint::read_sidecar(&dir.join("alone.safetensors")).err().unwrap();
    let alone = dir.join("alone");
    assert_eq!(
        err.to_string(),
        format!(
            "{}.safetensors has no sidecar: {}.json does not exist (a checkpoint is NAME.safetensors with NAME.json beside it)",
            alone.display(),
            alone.display()
        )
    );
}

#[test]
fn a_network_from_a_build_with_fewer_planes_is_fed_the_first_ones() {
    use dojo_game::connect4::Connect4;
    use dojo_game::Game;
    set_threads(1);
    let tmp = temp_dir("prefix");
    // A Connect Four network from before the threat planes: 6 input planes, not 9.
    let a = Architecture { input_channels: 6, ..arch(1, 8) };
    let path = tmp.path().join("old.safetensors");
    checkpoint::save(&Model::new(a.clone(), Device::Cpu), &path, 1, 1, None).unwrap();
    let old = checkpoint::load(&path, Device::Cpu, Some(&GameSpec::connect4())).unwrap().model;
    assert_eq!(old.arch().input_channels, 6);

    // Today's planes of three positions, and the first six of each by hand.
    let per = Connect4::<u64>::standard().plane_shape().len();
    let mut planes = vec![0.0; 3 * per];
    for (k, moves) in ["", "44", "4453"].iter().enumerate() {
        let mut g = Connect4::<u64>::standard();
        for c in moves.chars() {
            g.play(g.action_from_text(&c.to_string()).unwrap()).unwrap();
        }
        g.encode_planes(&mut planes[k * per..(k + 1) * per]);
    }
    let first_six: Vec<f32> = planes.chunks(per).flat_map(|p| p[..6 * 42].to_vec()).collect();
    let model = |x: &[f32]| {
        let (mut p, mut v) = (vec![0.0; 21], vec![0.0; 3]);
        old.infer(x, 3, &mut p, &mut v);
        (p, v)
    };
    assert_eq!(model(&planes), model(&first_six));
    let folded = FoldedNetwork::new(&old, Precision::F32);
    let folded = |x: &[f32]| {
        let (mut p, mut v) = (vec![0.0; 21], vec![0.0; 3]);
        folded.infer(x, 3, &mut p, &mut v);
        (p, v)
    };
    assert_eq!(folded(&planes), folded(&first_six));
    let (p, _) = model(&planes);
    assert_ne!(p[..7], p[7..14], "the positions are told apart");

    // It trains on today's samples too (a run resumed from its checkpoint).
    let mut trainer = Trainer::new(old, TrainConfig::default()).unwrap();
    let mut batch = Batch { len: 3, planes, ..Default::default() };
    for i in 0..3 {
        batch.policy.extend((0..7).map(|a| if a == 3 { 1.0 } else { 0.0 }));
        batch.value.push(if i == 1 { 1.0 } else { -1.0 });
        batch.weight.push(1.0);
    }
    let losses = trainer.train_step(&batch);
    assert!(losses.policy.is_finite() && losses.value.is_finite(), "{losses:?}");
}

/// `n` random positions, each with one move to learn and a win or a loss.
fn toy_batch(a: &Architecture, n: usize, seed: u64) -> Batch {
    let mut batch = Batch { len: n, planes: inputs(n, a, seed), ..Default::default() };
    for i in 0..n {
        let mut row = vec![0.0; a.actions];
        row[i % a.actions] = 1.0;
        batch.policy.extend(row);
        batch.value.push(if i % 2 == 0 { 1.0 } else { -1.0 });
        batch.weight.push(1.0);
    }
    batch
}

#[test]
fn training_fits_a_fixed_batch() {
    set_threads(1);
    let a = arch(1, 8);
    let mut trainer =
        Trainer::new(Model::new(a.clone(), Device::Cpu), TrainConfig { learning_rate: 3e-3, ..Default::default() })
            .unwrap();
    let batch = toy_batch(&a, 16, 3);
    let before = trainer.evaluate(&batch);
    for _ in 0..150 {
        trainer.train_step(&batch);
    }
    let after = trainer.evaluate(&batch);
    assert_eq!(trainer.step, 150);
    assert!(after.policy < before.policy * 0.5, "policy loss {} -> {}", before.policy, after.policy);
    assert!(after.value < before.value * 0.5, "value loss {} -> {}", before.value, after.value);
    assert!(after.entropy < before.entropy);
}

/// A trainer of `a` in `precision`, its weights drawn from `seed` (the same for the same seed).
fn trainer_in(a: &Architecture, precision: Precision, seed: i64) -> Trainer {
    tch::manual_seed(seed);
    let config =
        TrainConfig { learning_rate: 3e-3, precision: PrecisionChoice::Fixed(precision), ..Default::default() };
    Trainer::new(Model::new(a.clone(), Device::Cpu), config).unwrap()
}

#[test]
fn mixed_precision_training_keeps_f32_weights_and_learns_as_f32_does() {
    set_threads(1);
    let any_size = Architecture::any_size(GameSpec::Connect4Saiblo, 8, 8, 1, 8);
    for a in [arch(1, 8), gomoku_arch(1, 8, PolicyHead::Conv), any_size] {
        let batch = toy_batch(&a, 16, 3);
        let (mut exact, mut mixed) = (trainer_in(&a, Precision::F32, 7), trainer_in(&a, Precision::Bf16, 7));
        assert_eq!(mixed.precision().to_string(), "training in bf16 (train.precision)");
        // The same weights give the same losses to bf16's precision (8 bits of mantissa).
        let (first_exact, first_mixed) = (exact.train_step(&batch), mixed.train_step(&batch));
        let close = |x: f64, y: f64| (x - y).abs() <= 0.02 * x.abs().max(0.05);
        assert!(close(first_exact.policy, first_mixed.policy), "{:?}: {first_exact:?} {first_mixed:?}", a.game);
        assert!(close(first_exact.value, first_mixed.value), "{:?}: {first_exact:?} {first_mixed:?}", a.game);
        for _ in 0..100 {
            exact.train_step(&batch);
            mixed.train_step(&batch);
        }
        // The optimizer's weights stay f32: checkpoints and play are unchanged.
        for (name, w) in mixed.model.vs.variables() {
            assert_eq!(w.kind(), tch::Kind::Float, "{name}");
        }
        let (before, after_exact, after_mixed) = (first_exact, exact.evaluate(&batch), mixed.evaluate(&batch));
        for (what, b, e, m) in [
            ("policy", before.policy, after_exact.policy, after_mixed.policy),
            ("value", before.value, after_exact.value, after_mixed.value),
        ] {
            assert!(e < b * 0.7 && m < b * 0.7, "{:?} {what} loss {b} -> f32 {e}, bf16 {m}", a.game);
            assert!((m - e).abs() < 0.1 * b, "{:?} {what} loss {b} -> f32 {e}, bf16 {m}", a.game);
        }
    }
}

#[test]
fn auto_times_both_training_formats_on_the_network_and_says_which_it_chose() {
    set_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let cache = DecisionCache::in_dir(dir.path());
    let config = TrainConfig { precision: PrecisionChoice::Auto, batch_size: 8, ..Default::default() };
    let a = arch(1, 8);
    let choose = || TrainingPrecision::choose(PrecisionChoice::Auto, &a, Device::Cpu, &config, Some(&cache)).unwrap();
    let chosen = choose();
    let timed: Vec<Precision> = chosen.measured.iter().map(|m| m.0).collect();
    assert_eq!(timed, [Precision::F32, Precision::Bf16]);
    assert!(chosen.measured.iter().all(|m| m.1.is_finite() && m.1 > 0.0), "{chosen:?}");
    let (f32_rate, bf16_rate) = (chosen.measured[0].1, chosen.measured[1].1);
    let expected = if bf16_rate >= 1.2 * f32_rate { Precision::Bf16 } else { Precision::F32 };
    assert_eq!((chosen.chosen, chosen.cached.clone()), (expected, None));
    let text = chosen.to_string();
    assert!(text.starts_with(&format!("training in {expected} (auto: steps/s of this network f32 ")), "{text}");
    // The next learner of this network on this machine reads the choice back, timings and
    // all, and says where from; another batch size (or network) is timed afresh.
    let again = choose();
    assert_eq!(again.chosen, chosen.chosen);
    let rates = |t: &TrainingPrecision| t.measured.iter().map(|m| (m.0, format!("{:.9e}", m.1))).collect::<Vec<_>>();
    assert_eq!(rates(&again), rates(&chosen), "the timings, to JSON's round trip");
    assert_eq!(again.cached.as_deref(), Some(cache.path()));
    let prefix = format!("training in {expected} (auto, cached in {}: steps/s", cache.path().display());
    assert!(again.to_string().starts_with(&prefix), "{again}");
    let other = TrainConfig { batch_size: 4, ..config.clone() };
    let fresh = TrainingPrecision::choose(PrecisionChoice::Auto, &a, Device::Cpu, &other, Some(&cache)).unwrap();
    assert_eq!(fresh.cached, None);
    // A trainer resolves `auto` the same way, and a named format is never timed.
    let trainer = Trainer::new(Model::new(a.clone(), Device::Cpu), config.clone()).unwrap();
    assert_eq!(trainer.precision().measured.len(), 2);
    let fixed =
        TrainingPrecision::choose(PrecisionChoice::Fixed(Precision::Bf16), &a, Device::Cpu, &config, Some(&cache));
    assert_eq!(fixed.unwrap().to_string(), "training in bf16 (train.precision)");
}

#[test]
fn folded_network_gives_the_models_outputs() {
    set_threads(1);
    for a in [arch(2, 8), gomoku_arch(2, 8, PolicyHead::Conv)] {
        let n = a.actions;
        let mut trainer =
            Trainer::new(Model::new(a.clone(), Device::Cpu), TrainConfig { learning_rate: 3e-3, ..Default::default() })
                .unwrap();
        // Training moves every batch norm's statistics, scale and shift away from their
        // initial values, so a fold that dropped any of them would show.
        let batch = toy_batch(&a, 16, 5);
        for _ in 0..40 {
            trainer.train_step(&batch);
        }
        let folded = FoldedNetwork::new(&trainer.model, Precision::F32);
        let x = inputs(9, &a, 6);
        let (mut p1, mut v1) = (vec![0.0; 9 * n], vec![0.0; 9]);
        let (mut p2, mut v2) = (vec![0.0; 9 * n], vec![0.0; 9]);
        trainer.model.infer(&x, 9, &mut p1, &mut v1);
        folded.infer(&x, 9, &mut p2, &mut v2);
        let spread = p1.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert!(spread > 0.1, "a trained net's logits are not all near zero: {p1:?}");
        for (x, y) in p1.iter().zip(&p2).chain(v1.iter().zip(&v2)) {
            assert!((x - y).abs() < 1e-4 * (1.0 + x.abs()), "{:?} head: model {x}, folded {y}", a.policy_head);
        }
        // A batch of one takes the same path.
        let (mut p3, mut v3) = (vec![0.0; n], vec![0.0; 1]);
        folded.infer(&x[..a.input_len()], 1, &mut p3, &mut v3);
        assert!(p3.iter().zip(&p1[..n]).all(|(x, y)| (x - y).abs() < 1e-4 * (1.0 + y.abs())), "{p3:?} {:?}", &p1[..n]);
        assert!((v3[0] - v1[0]).abs() < 1e-4);

        // In bf16 (8-bit mantissa, f32 accumulation) the outputs move a little, not much:
        // the search sees the same position.
        let half = FoldedNetwork::new(&trainer.model, Precision::Bf16);
        let (mut p4, mut v4) = (vec![0.0; 9 * n], vec![0.0; 9]);
        half.infer(&x, 9, &mut p4, &mut v4);
        let mut moved = 0.0f32;
        for (x, y) in p1.iter().zip(&p4).chain(v1.iter().zip(&v4)) {
            assert!((x - y).abs() < 0.05 * (1.0 + x.abs()), "{:?} head: f32 {x}, bf16 {y}", a.policy_head);
            moved = moved.max((x - y).abs());
        }
        assert!(moved > 1e-5, "the bf16 network gave the f32 outputs exactly: it did not run in bf16");
    }
}

/// Trains a Gomoku net to play on the cell its last-move plane marks, showing it only
/// marks in the left four columns, and returns the share of marks in the right four
/// columns it then plays on.
fn marked_cell_accuracy_on_unseen_columns(policy_head: PolicyHead) -> f64 {
    tch::manual_seed(7);
    let a = gomoku_arch(1, 8, policy_head);
    let cells = 81;
    let batch_of = |columns: std::ops::Range<usize>| {
        let mut b = Batch::default();
        for y in 0..9 {
            for x in columns.clone() {
                let mut planes = vec![0.0f32; a.input_len()];
                planes[2 * cells + y * 9 + x] = 1.0; // last move
                planes[3 * cells..].fill(1.0); // the board
                let mut policy = vec![0.0f32; cells];
                policy[y * 9 + x] = 1.0;
                b.planes.extend(planes);
                b.policy.extend(policy);
                b.value.push(0.0);
                b.weight.push(1.0);
                b.len += 1;
            }
        }
        b
    };
    let (seen, unseen) = (batch_of(0..4), batch_of(5..9));
    let mut trainer =
        Trainer::new(Model::new(a.clone(), Device::Cpu), TrainConfig { learning_rate: 1e-2, ..Default::default() })
            .unwrap();
    for _ in 0..150 {
        trainer.train_step(&seen);
    }
    let mut p = vec![0.0; unseen.len * cells];
    let mut v = vec![0.0; unseen.len];
    trainer.model.infer(&unseen.planes, unseen.len, &mut p, &mut v);
    let hits = (0..unseen.len)
        .filter(|&i| {
            let row = &p[i * cells..(i + 1) * cells];
            let best = (0..cells).max_by(|&x, &y| row[x].total_cmp(&row[y])).unwrap();
            unseen.policy[i * cells + best] == 1.0
        })
        .count();
    hits as f64 / unseen.len as f64
}

#[test]
fn a_convolutional_policy_head_knows_everywhere_what_it_learnt_in_one_place() {
    set_threads(1);
    let conv = marked_cell_accuracy_on_unseen_columns(PolicyHead::Conv);
    let fc = marked_cell_accuracy_on_unseen_columns(PolicyHead::Fc);
    // The share depends on the network's random start, and the seed does not fix that start:
    // other tests in this binary draw from the same generator at the same time, and CPUs
    // round differently. Over 30 seeds on one machine the conv head played 0.75 to 1.0 of the
    // unseen marks (26 of 30 at 0.9 or more; CI once saw 0.89 with seed 7), the linear head
    // none: either is far from the 1 in 81 of a guess, and from each other.
    assert!(conv >= 0.6, "conv head: {conv} of unseen marks played");
    // The linear head has a separate weight for every cell: those it never saw wanted
    // are only ever pushed down.
    assert!(fc <= 0.2, "fc head: {fc} of unseen marks played");
}

#[test]
fn policy_heads_are_checked_against_the_game() {
    let c4 = dojo_game::connect4::Connect4::<u64>::standard();
    let err = PolicyHeadChoice::Conv.resolve(&c4).unwrap_err().to_string();
    assert!(err.contains("policy head conv needs a game whose moves are its board's cells"), "{err}");
    assert!(err.contains("connect4:7x6's 7 moves"), "{err}");
    assert_eq!(PolicyHeadChoice::Auto.resolve(&c4), Ok(PolicyHead::Fc));
    let gomoku = dojo_game::gomoku::Gomoku::new(9).unwrap();
    assert_eq!(PolicyHeadChoice::Auto.resolve(&gomoku), Ok(PolicyHead::Conv));
    assert_eq!(PolicyHeadChoice::Fc.resolve(&gomoku), Ok(PolicyHead::Fc));
    // A hand-made architecture is checked too.
    let err = Architecture { policy_head: PolicyHead::Conv, ..arch(1, 8) }.validate().unwrap_err().to_string();
    assert!(err.contains("a convolutional policy head needs one move per board cell"), "{err}");
    assert_eq!("conv".parse::<PolicyHeadChoice>(), Ok(PolicyHeadChoice::Conv));
    assert!("cnn".parse::<PolicyHeadChoice>().unwrap_err().to_string().contains("expected auto, fc or conv"));
}

#[test]
fn a_sidecar_from_before_the_policy_head_choice_loads_with_the_linear_head() {
    let mut json = serde_json::to_value(arch(1, 8)).unwrap();
    json.as_object_mut().unwrap().remove("policy_head");
    let old: Architecture = serde_json::from_value(json).unwrap();
    assert_eq!(old.policy_head, PolicyHead::Fc);
    let conv = serde_json::to_string(&gomoku_arch(1, 8, PolicyHead::Conv)).unwrap();
    assert!(conv.contains(r#""policy_head":"conv""#), "{conv}");
}

/// [`toy_batch`] with the opponent's reply targets: the move after each row's, and no
/// reply for the last row.
fn toy_batch_with_replies(a: &Architecture, n: usize, seed: u64) -> Batch {
    let mut batch = Batch { with_opponent_policy: true, ..toy_batch(a, n, seed) };
    for i in 0..n {
        let mut row = vec![0.0; a.actions];
        let has = i + 1 < n;
        if has {
            row[(i + 2) % a.actions] = 1.0;
        }
        batch.opponent_policy.extend(row);
        batch.has_opponent_policy.push(if has { 1.0 } else { 0.0 });
    }
    batch
}

/// A network's inference on a batch: planes in, policy logits and values out.
type Infer<'a> = dyn Fn(&[f32], &mut [f32], &mut [f32]) + 'a;

#[test]
fn auxiliary_heads_train_beside_the_policy_and_play_never_reads_them() {
    set_threads(1);
    let both = AuxHeads { opponent_policy: true, soft_policy: true };
    for plain in [arch(1, 8), gomoku_arch(1, 8, PolicyHead::Conv)] {
        let a = plain.clone().with_aux_heads(both);
        let config = TrainConfig {
            learning_rate: 3e-3,
            opponent_policy_weight: 0.5,
            soft_policy_weight: 2.0,
            ..Default::default()
        };
        let mut trainer = Trainer::new(Model::new(a.clone(), Device::Cpu), config).unwrap();
        let batch = toy_batch_with_replies(&a, 16, 3);
        let before = trainer.evaluate(&batch);
        assert!(before.opponent_policy > 0.0 && before.soft_policy > 0.0, "{before:?}");
        for _ in 0..150 {
            trainer.train_step(&batch);
        }
        let after = trainer.evaluate(&batch);
        assert!(after.opponent_policy < before.opponent_policy * 0.5, "{before:?} -> {after:?}");
        assert!(after.soft_policy < before.soft_policy * 0.7, "{before:?} -> {after:?}");
        assert!(after.policy < before.policy * 0.5, "{before:?} -> {after:?}");
        // The total counts them at their weights.
        let total = after.policy + after.value + 0.5 * after.opponent_policy + 2.0 * after.soft_policy;
        assert!((after.total - total).abs() < 1e-4 * total, "{after:?}");

        // They are part of the checkpoint: it round-trips, and its sidecar names them.
        let dir = temp_dir("aux");
        let path = dir.path().join("aux.safetensors");
        checkpoint::save(&trainer.model, &path, 150, 1, None).unwrap();
        let loaded = checkpoint::load(&path, Device::Cpu, None).unwrap();
        assert_eq!(loaded.model.arch().aux_heads, both);
        let sidecar: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path.with_extension("json")).unwrap()).unwrap();
        let named = &sidecar["architecture"]["aux_heads"];
        assert_eq!(*named, serde_json::json!({"opponent_policy": true, "soft_policy": true}), "{sidecar}");
        // Play reads the policy and value only: the model, the loaded one and the folded
        // network (which leaves the heads out) agree.
        let x = inputs(4, &a, 9);
        let n = a.actions;
        let run = |infer: &Infer| {
            let (mut p, mut v) = (vec![0.0; 4 * n], vec![0.0; 4]);
            infer(&x, &mut p, &mut v);
            (p, v)
        };
        let ours = run(&|x, p, v| trainer.model.infer(x, 4, p, v));
        assert_eq!(ours, run(&|x, p, v| loaded.model.infer(x, 4, p, v)));
        let folded = FoldedNetwork::new(&loaded.model, Precision::F32);
        let (p, v) = run(&|x, p, v| folded.infer(x, 4, p, v));
        for (x, y) in ours.0.iter().zip(&p).chain(ours.1.iter().zip(&v)) {
            assert!((x - y).abs() < 1e-4 * (1.0 + x.abs()), "model {x}, folded {y}");
        }
        // A network without the heads is not the same shape: its weights do not load as one.
        let err = checkpoint::model_from_bytes(&plain, &std::fs::read(&path).unwrap(), Device::Cpu).err().unwrap();
        assert!(err.to_string().contains("not part of this architecture"), "{err}");
    }
}

#[test]
fn an_auxiliary_target_needs_its_head() {
    let config = TrainConfig { soft_policy_weight: 8.0, ..Default::default() };
    let err = Trainer::new(Model::new(arch(1, 4), Device::Cpu), config).err().unwrap();
    assert_eq!(
        err.to_string(),
        "train.soft_policy_weight is 8, but this network has no soft policy head (a run gets one when it starts \
         with the weight above 0; set it to 0 to go on with this network)"
    );
    let config = TrainConfig { opponent_policy_weight: -1.0, ..Default::default() };
    let err = Trainer::new(Model::new(arch(1, 4), Device::Cpu), config).err().unwrap();
    assert_eq!(err.to_string(), "train.opponent_policy_weight = -1 must be within 0..=100");
    // A sidecar without them (every checkpoint before them) has none, and writes none.
    let json = serde_json::to_string(&arch(1, 8)).unwrap();
    assert!(!json.contains("aux_heads"), "{json}");
    assert_eq!(serde_json::from_str::<Architecture>(&json).unwrap().aux_heads, AuxHeads::default());
}

#[test]
fn bad_train_config_is_refused() {
    let err = Trainer::new(Model::new(arch(1, 4), Device::Cpu), TrainConfig { batch_size: 0, ..Default::default() })
        .err()
        .unwrap();
    assert_eq!(err.to_string(), "train.batch_size must be at least 1");
    let f16 = TrainConfig { precision: PrecisionChoice::Fixed(Precision::F16), ..Default::default() };
    let err = Trainer::new(Model::new(arch(1, 4), Device::Cpu), f16).err().unwrap();
    assert_eq!(
        err.to_string(),
        "train.precision \"f16\": expected auto, f32 or bf16 (f16 needs loss scaling, which the trainer does not do)"
    );
}
