//! Our optimizers: same numbers as libtorch's, exact resume from saved state, clear errors on
//! bad state files (small nets, one libtorch thread).

use dojo_arch::architecture::{Architecture, PolicyHead};
use dojo_arch::train::OptimizerKind;
use dojo_arch::train::TrainConfig;
use dojo_base::rng::Rng;
use dojo_game::GameSpec;
use dojo_net::checkpoint;
use dojo_net::device::set_threads;
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_net::optim::{OptimError, Optimizer, OptimizerConfig};
use dojo_net::train::{Batch, Trainer};
use rand::{RngExt, SeedableRng};
use safetensors::tensor::{Dtype, SafeTensors, TensorView};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use tch::nn;
use tch::{Kind, Tensor};

/// Runs the calling test alone among this file's tests, on one libtorch thread. Tests that
/// run at once share libtorch's intra-op pool, which then splits reductions differently
/// from one forward pass to the next; 20 training steps amplify that rounding into
/// differences of 1e-2 between two runs that should agree to 1e-5.
fn alone() -> MutexGuard<'static, ()> {
    static TORCH: Mutex<()> = Mutex::new(());
    let guard = TORCH.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    set_threads(1);
    guard
}

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
        aux_heads: Default::default(),
    }
}

/// A fresh directory, removed with everything in it when the guard drops.
fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("dojo-optim-{name}-")).tempdir().unwrap()
}

/// A random batch: sparse 0/1 planes, one-hot policy targets, ±1 values, uneven weights.
fn batch(a: &Architecture, n: usize, seed: u64) -> Batch {
    let mut rng = Rng::seed_from_u64(seed);
    let mut b = Batch { len: n, ..Default::default() };
    b.planes = (0..n * a.input_len()).map(|_| if rng.random_ratio(1, 3) { 1.0 } else { 0.0 }).collect();
    for _ in 0..n {
        let mut row = vec![0.0; a.actions];
        row[rng.random_range(..a.actions)] = 1.0;
        b.policy.extend(row);
        b.value.push(if rng.random_bool(0.5) { 1.0 } else { -1.0 });
        b.weight.push(0.5 + rng.random::<f32>());
    }
    b
}

/// Policy cross-entropy + value MSE of `model` on `b` (training mode).
fn loss(model: &Model, b: &Batch) -> Tensor {
    let a = model.arch();
    let n = b.len as i64;
    let xs = Tensor::from_slice(&b.planes).view([n, a.input_channels as i64, a.height as i64, a.width as i64]);
    let tp = Tensor::from_slice(&b.policy).view([n, a.actions as i64]);
    let tv = Tensor::from_slice(&b.value);
    let (logits, v) = model.net.forward(&xs, true);
    let policy = -(tp * logits.log_softmax(1, Kind::Float)).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float);
    policy + (v - tv).square().mean(Kind::Float)
}

fn vars(model: &Model) -> Vec<(String, Tensor)> {
    let mut v: Vec<(String, Tensor)> = model.vs.variables().into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

/// The largest absolute difference between two models' variables (all of them, batch-norm
/// statistics included).
fn max_diff(a: &Model, b: &Model) -> f64 {
    max_diff_of(a, b, false)
}

/// The same over the trainable variables only (batch-norm statistics move without any
/// optimizer).
fn max_diff_of(a: &Model, b: &Model, trainable_only: bool) -> f64 {
    let (va, vb) = (vars(a), vars(b));
    assert_eq!(va.len(), vb.len());
    va.iter()
        .zip(&vb)
        .filter(|((_, ta), _)| !trainable_only || ta.requires_grad())
        .map(|((na, ta), (nb, tb))| {
            assert_eq!(na, nb);
            (ta - tb).abs().max().double_value(&[])
        })
        .fold(0.0, f64::max)
}

fn copy_of(model: &Model) -> Model {
    let mut other = Model::new(model.arch().clone(), Device::Cpu);
    other.vs.copy(&model.vs).unwrap();
    other
}

/// Runs our optimizer and libtorch's from the same weights over the same 20 batches.
fn compare_with_libtorch(ours_config: OptimizerConfig, theirs: impl nn::OptimizerConfig, lr: f64) {
    let a = arch(1, 8);
    tch::manual_seed(11);
    let m1 = Model::new(a.clone(), Device::Cpu);
    let m2 = copy_of(&m1);
    let start = copy_of(&m1);
    let mut ours = Optimizer::new(&m1.vs, ours_config, lr).unwrap();
    let mut theirs = theirs.build(&m2.vs, lr).unwrap();
    for i in 0..20 {
        let b = batch(&a, 8, 100 + i);
        ours.step(&loss(&m1, &b)).unwrap();
        theirs.backward_step(&loss(&m2, &b));
    }
    assert_eq!(ours.steps(), 20);
    let moved = max_diff_of(&m1, &start, true);
    assert!(moved > 1e-3, "{ours_config:?}: the weights barely moved ({moved}), so the comparison proves nothing");
    // The two sum in different orders, and 20 steps amplify the rounding (up to ~1e-4 seen
    // at lr 0.1); a wrong update (a missing momentum or decay term) differs by about as
    // much as the weights moved.
    let diff = max_diff(&m1, &m2);
    assert!(diff < 1e-3 * moved, "{ours_config:?}: ours and libtorch's differ by {diff} (the weights moved {moved})");
}

#[test]
fn adam_matches_libtorch() {
    let _alone = alone();
    compare_with_libtorch(OptimizerConfig::adam(1e-2), nn::Adam { wd: 1e-2, ..Default::default() }, 1e-2);
    compare_with_libtorch(OptimizerConfig::adam(0.0), nn::Adam::default(), 3e-3);
}

#[test]
fn sgd_with_momentum_matches_libtorch() {
    let _alone = alone();
    compare_with_libtorch(
        OptimizerConfig::sgd(0.9, 1e-2),
        nn::Sgd { momentum: 0.9, wd: 1e-2, ..Default::default() },
        0.05,
    );
    compare_with_libtorch(OptimizerConfig::sgd(0.0, 0.0), nn::Sgd::default(), 0.1);
}

fn config(kind: OptimizerKind) -> TrainConfig {
    let lr = match kind {
        OptimizerKind::Sgd => 0.05,
        OptimizerKind::Adam => 3e-3,
    };
    TrainConfig { optimizer: kind, learning_rate: lr, momentum: 0.9, weight_decay: 1e-3, ..Default::default() }
}

#[test]
fn resuming_from_checkpoint_and_optimizer_state_is_exact() {
    let _alone = alone();
    for kind in [OptimizerKind::Sgd, OptimizerKind::Adam] {
        let tmp = temp_dir(&format!("resume-{kind}"));
        let dir = tmp.path().to_path_buf();
        let a = arch(1, 8);
        let batches: Vec<Batch> = (0..20).map(|i| batch(&a, 8, 7 + i)).collect();
        let ckpt = dir.join("m.safetensors");
        let state = dir.join("m.optim.safetensors");

        // Uninterrupted run, saving everything after 10 steps.
        let mut first = Trainer::new(Model::new(a.clone(), Device::Cpu), config(kind)).unwrap();
        for b in &batches[..10] {
            first.train_step(b);
        }
        checkpoint::save(&first.model, &ckpt, first.step, 0, None).unwrap();
        first.save_state(&state).unwrap();
        for b in &batches[10..] {
            first.train_step(b);
        }
        assert_eq!(first.step, 20);
        assert_eq!(first.optimizer().steps(), 20);

        // Restart: checkpoint + optimizer state, the same last 10 batches.
        let loaded = checkpoint::load(&ckpt, Device::Cpu, None).unwrap();
        let mut resumed = Trainer::new(loaded.model, config(kind)).unwrap();
        resumed.load_state(&state).unwrap();
        assert_eq!(resumed.step, 10);
        assert_eq!(resumed.optimizer().steps(), 10);
        for b in &batches[10..] {
            resumed.train_step(b);
        }
        assert_eq!(resumed.step, first.step);
        let diff = max_diff(&first.model, &resumed.model);
        assert!(diff <= 1e-6, "{kind}: resumed run differs by {diff}");

        // The same restart without the optimizer state ends elsewhere: the state matters.
        let loaded = checkpoint::load(&ckpt, Device::Cpu, None).unwrap();
        let mut fresh = Trainer::new(loaded.model, config(kind)).unwrap();
        fresh.step = loaded.sidecar.step;
        for b in &batches[10..] {
            fresh.train_step(b);
        }
        let diff = max_diff_of(&first.model, &fresh.model, true);
        assert!(diff > 1e-3, "{kind}: without its state the run differs by only {diff}");

        let names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names.len(), 3, "no temp files left: {names:?}");
    }
}

#[test]
fn state_file_layout_and_metadata() {
    let _alone = alone();
    let a = arch(1, 4);
    let mut t = Trainer::new(Model::new(a.clone(), Device::Cpu), config(OptimizerKind::Adam)).unwrap();
    t.train_step(&batch(&a, 4, 1));
    t.train_step(&batch(&a, 4, 2));
    t.set_learning_rate(5e-4);
    let bytes = t.state_bytes().unwrap();
    let meta = Optimizer::state_metadata(&bytes).unwrap();
    assert_eq!(meta["format"], "dojo-optimizer/1");
    assert_eq!(meta["kind"], "adam");
    assert_eq!(meta["steps"], "2");
    assert_eq!(meta["trainer_step"], "2");
    assert_eq!(meta["lr"], "0.0005");
    assert_eq!(meta["beta1"], "0.9");
    assert_eq!(meta["beta2"], "0.999");
    assert_eq!(meta["eps"], "0.00000001");
    assert_eq!(meta["weight_decay"], "0.001");

    // Two buffers per trainable variable; batch-norm statistics have none.
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let trainable = t.optimizer().var_names();
    assert_eq!(st.len(), 2 * trainable.len());
    assert!(trainable.contains(&"stem.conv.weight"));
    assert!(!trainable.iter().any(|n| n.contains("running")), "{trainable:?}");
    assert_eq!(st.tensor("stem.conv.weight.exp_avg").unwrap().shape(), &[4, 9, 3, 3]);
    assert_eq!(st.tensor("policy.fc.bias.exp_avg_sq").unwrap().shape(), &[7]);
    let sgd = Trainer::new(Model::new(a, Device::Cpu), config(OptimizerKind::Sgd)).unwrap();
    let st_bytes = sgd.state_bytes().unwrap();
    let st = SafeTensors::deserialize(&st_bytes).unwrap();
    assert_eq!(st.len(), trainable.len());
    assert!(st.tensor("stem.conv.weight.momentum").is_ok());
    assert_eq!(Optimizer::state_metadata(&st_bytes).unwrap()["momentum"], "0.9");
}

/// Rewrites a safetensors file through `edit` (None drops a tensor), keeping its metadata.
fn rewrite(bytes: &[u8], edit: impl Fn(&str, &[usize], &[u8]) -> Option<(Vec<usize>, Vec<u8>)>) -> Vec<u8> {
    let meta: HashMap<String, String> = Optimizer::state_metadata(bytes).unwrap();
    let st = SafeTensors::deserialize(bytes).unwrap();
    let owned: Vec<(String, Vec<usize>, Vec<u8>)> = st
        .tensors()
        .into_iter()
        .filter_map(|(name, v)| edit(&name, v.shape(), v.data()).map(|(s, d)| (name, s, d)))
        .collect();
    let views: Vec<(String, TensorView<'_>)> =
        owned.iter().map(|(n, s, d)| (n.clone(), TensorView::new(Dtype::F32, s.clone(), d).unwrap())).collect();
    safetensors::serialize(views, Some(meta)).unwrap()
}

/// The same metadata and tensors (the header's key order follows a HashMap, so the bytes of
/// equal states may differ).
fn assert_same_state(a: &[u8], b: &[u8]) {
    assert_eq!(Optimizer::state_metadata(a).unwrap(), Optimizer::state_metadata(b).unwrap());
    let (sa, sb) = (SafeTensors::deserialize(a).unwrap(), SafeTensors::deserialize(b).unwrap());
    let mut names = sa.names();
    names.sort();
    let mut names_b = sb.names();
    names_b.sort();
    assert_eq!(names, names_b);
    for name in names {
        let (ta, tb) = (sa.tensor(name).unwrap(), sb.tensor(name).unwrap());
        assert_eq!(ta.shape(), tb.shape(), "{name}");
        assert!(ta.data() == tb.data(), "{name} differs");
    }
}

fn load_err(t: &mut Trainer, path: &Path, bytes: &[u8]) -> String {
    std::fs::write(path, bytes).unwrap();
    let err = t.load_state(path).expect_err("loading should fail");
    assert!(matches!(err, OptimError::File { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(msg.starts_with(&path.display().to_string()), "errors name the file: {msg}");
    msg
}

#[test]
fn bad_state_files_are_clear_errors_and_change_nothing() {
    let _alone = alone();
    let tmp = temp_dir("errors");
    let dir = tmp.path().to_path_buf();
    let a = arch(1, 8);
    let path = dir.join("state.safetensors");
    let mut adam = Trainer::new(Model::new(a.clone(), Device::Cpu), config(OptimizerKind::Adam)).unwrap();
    for i in 0..3 {
        adam.train_step(&batch(&a, 4, i));
    }
    let good = adam.state_bytes().unwrap();
    let mut t = Trainer::new(Model::new(a.clone(), Device::Cpu), config(OptimizerKind::Adam)).unwrap();
    t.train_step(&batch(&a, 4, 9));
    let before = t.state_bytes().unwrap();

    // The other kind of optimizer.
    let mut sgd = Trainer::new(Model::new(a.clone(), Device::Cpu), config(OptimizerKind::Sgd)).unwrap();
    let msg = load_err(&mut sgd, &path, &good);
    assert!(msg.ends_with("optimizer state is for adam but the trainer uses sgd"), "{msg}");
    let sgd_state = sgd.state_bytes().unwrap();
    let msg = load_err(&mut t, &path, &sgd_state);
    assert!(msg.ends_with("optimizer state is for sgd but the trainer uses adam"), "{msg}");

    // Truncated, empty, or not safetensors at all.
    let msg = load_err(&mut t, &path, &good[..good.len() / 2]);
    assert!(msg.contains("not a valid optimizer state file"), "{msg}");
    let msg = load_err(&mut t, &path, &good[..good.len() - 1]);
    assert!(msg.contains("not a valid optimizer state file"), "{msg}");
    let msg = load_err(&mut t, &path, b"");
    assert!(msg.contains("not a valid optimizer state file"), "{msg}");

    // A model checkpoint passed by mistake: safetensors, but no optimizer metadata.
    let weights = checkpoint::weights_bytes(&t.model).unwrap();
    let msg = load_err(&mut t, &path, &weights);
    assert!(msg.contains("not a valid optimizer state file: no format in its metadata"), "{msg}");

    // A bare optimizer's state, without the trainer's step.
    let bare = Optimizer::new(&adam.model.vs, OptimizerConfig::adam(0.0), 1e-3).unwrap().state_bytes().unwrap();
    let msg = load_err(&mut t, &path, &bare);
    assert!(msg.contains("no trainer_step in its metadata"), "{msg}");

    // A missing tensor.
    let dropped = rewrite(&good, |n, s, d| (n != "stem.conv.weight.exp_avg").then(|| (s.to_vec(), d.to_vec())));
    let msg = load_err(&mut t, &path, &dropped);
    assert!(msg.ends_with("optimizer state lacks stem.conv.weight.exp_avg"), "{msg}");

    // A wrongly shaped tensor (same byte count, so only the shape check can see it).
    let reshaped = rewrite(&good, |n, s, d| {
        Some((if n == "stem.conv.weight.exp_avg_sq" { vec![s[0] * s[1], s[2] * s[3]] } else { s.to_vec() }, d.to_vec()))
    });
    let msg = load_err(&mut t, &path, &reshaped);
    assert!(
        msg.ends_with(
            "optimizer state tensor stem.conv.weight.exp_avg_sq: shape [72, 9] does not match the variable's [8, 9, 3, 3]"
        ),
        "{msg}"
    );

    // State of another architecture: wider (shapes) or deeper (extra variables).
    let wide = Trainer::new(Model::new(arch(1, 16), Device::Cpu), config(OptimizerKind::Adam)).unwrap();
    let msg = load_err(&mut t, &path, &wide.state_bytes().unwrap());
    assert!(msg.contains("does not match the variable's"), "{msg}");
    let deep = Trainer::new(Model::new(arch(2, 8), Device::Cpu), config(OptimizerKind::Adam)).unwrap();
    let msg = load_err(&mut t, &path, &deep.state_bytes().unwrap());
    assert!(msg.contains("optimizer state holds block1."), "{msg}");
    assert!(msg.ends_with(", which is not part of this model"), "{msg}");

    // Non-finite moments would poison every later step.
    let poisoned = rewrite(&good, |n, s, d| {
        let mut d = d.to_vec();
        if n == "value.fc2.bias.exp_avg" {
            d[..4].copy_from_slice(&f32::NAN.to_le_bytes());
        }
        Some((s.to_vec(), d))
    });
    let msg = load_err(&mut t, &path, &poisoned);
    assert!(msg.ends_with("optimizer state tensor value.fc2.bias.exp_avg: holds NaN or infinite values"), "{msg}");

    // A missing file.
    let err = t.load_state(&dir.join("nope.safetensors")).err().unwrap();
    assert!(matches!(err, OptimError::Io { .. }), "{err:?}");
    assert!(err.to_string().contains("nope.safetensors"), "{err}");

    // None of the failures touched the trainer.
    assert_eq!(t.step, 1);
    assert_eq!(t.optimizer().steps(), 1);
    assert_same_state(&t.state_bytes().unwrap(), &before);

    // And the good file still loads.
    std::fs::write(&path, &good).unwrap();
    t.load_state(&path).unwrap();
    assert_eq!(t.step, 3);
    assert_same_state(&t.state_bytes().unwrap(), &good);
}

#[test]
fn bad_settings_and_losses_are_errors_not_panics() {
    let _alone = alone();
    let model = Model::new(arch(1, 4), Device::Cpu);
    let err = Optimizer::new(&model.vs, OptimizerConfig::sgd(1.5, 0.0), 0.1).err().unwrap();
    assert_eq!(err.to_string(), "bad optimizer settings: sgd momentum = 1.5 must be within 0..1");
    let err = Optimizer::new(&model.vs, OptimizerConfig::adam(0.0), f64::NAN).err().unwrap();
    assert_eq!(err.to_string(), "bad optimizer settings: learning rate NaN must be finite and not negative");
    let mut opt = Optimizer::new(&model.vs, OptimizerConfig::adam(0.0), 1e-3).unwrap();
    assert!(opt.set_lr(-1.0).is_err());
    assert_eq!(opt.lr(), 1e-3);
    // A loss that does not depend on the weights cannot be back-propagated.
    let err = opt.step(&Tensor::from(1.0f32)).err().unwrap();
    assert!(err.to_string().starts_with("backward pass:"), "{err}");
    assert_eq!(opt.steps(), 0);
}
