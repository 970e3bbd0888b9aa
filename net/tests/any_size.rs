//! Any-size Connect Four and Gomoku networks: one set of weights for boards of every size,
//! each framed into the network's largest size, giving the same outputs framed as alone.

use dojo_arch::architecture::{Architecture, PolicyHead};
use dojo_arch::precision::Precision;
use dojo_base::bits::Bits192;
use dojo_base::rng::Rng;
use dojo_game::connect4::Connect4;
use dojo_game::gomoku::Gomoku;
use dojo_game::BoardLayout;
use dojo_game::Symmetries;
use dojo_game::{Game, GameSpec};
use dojo_net::agent::NetAgent;
use dojo_net::checkpoint;
use dojo_net::device::set_threads;
use dojo_net::device::Device;
use dojo_net::folded::FoldedNetwork;
use dojo_net::infer::NetEvaluator;
use dojo_net::model::Model;
use dojo_search::config::SearchConfig;
use rand::SeedableRng;
use tch::{Kind, Tensor};

type Wide = Connect4<Bits192>;

fn saiblo_arch() -> Architecture {
    Architecture::any_size(GameSpec::Connect4Saiblo, 12, 12, 2, 16)
}

/// A board with a blocked cell and a few discs on it.
fn position(width: usize, height: usize, blocked: (usize, usize), moves: &[u16]) -> Wide {
    let mut g = Wide::new(width, height, &[blocked]).unwrap();
    for &m in moves {
        g.play(m).unwrap();
    }
    g
}

fn planes_of<G: Game>(g: &G) -> (Vec<f32>, [i64; 4]) {
    let shape = g.plane_shape();
    let mut planes = vec![0.0; shape.len()];
    g.encode_planes(&mut planes);
    (planes, [1, shape.channels as i64, shape.height as i64, shape.width as i64])
}

/// Policy logits and value of one position, as the trained network computes them.
fn outputs<G: Game>(model: &Model, g: &G, train: bool) -> (Vec<f32>, f32) {
    let (planes, shape) = planes_of(g);
    let xs = Tensor::from_slice(&planes).view(shape);
    let (p, v) = if train { model.net.forward(&xs, true) } else { tch::no_grad(|| model.net.forward(&xs, false)) };
    let p = p.to_kind(Kind::Float).squeeze_dim(0);
    (Vec::<f32>::try_from(&p).unwrap(), v.double_value(&[0]) as f32)
}

/// A model whose batch norms have running statistics of their own (a few training-mode
/// passes over framed boards of several sizes), so inference is not the identity map.
fn warmed_model() -> Model {
    set_threads(1);
    tch::manual_seed(7);
    let model = Model::new(saiblo_arch(), Device::Cpu);
    for (w, h) in [(9, 9), (12, 10), (10, 12), (11, 11)] {
        let g = position(w, h, (1, 0), &[0, 2, 3, 3]).framed(12, 12).unwrap();
        let _ = outputs(&model, &g, true);
    }
    model
}

fn assert_close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() < 1e-4, "{what}[{i}]: {x} against {y}\n{a:?}\n{b:?}");
    }
}

#[test]
fn a_framed_board_encodes_as_the_board_in_the_corner_with_one_move_per_frame_column() {
    let g = position(9, 10, (3, 2), &[4, 4, 3, 0, 8]);
    let f = g.clone().framed(12, 12).unwrap();
    assert_eq!((g.num_actions(), f.num_actions()), (9, 12));
    assert_eq!(f.spec(), g.spec(), "a frame does not change the board a record names");
    let (mut legal, mut framed_legal) = (Vec::new(), Vec::new());
    g.legal_actions(&mut legal);
    f.legal_actions(&mut framed_legal);
    assert_eq!(legal, framed_legal);
    assert!(!f.is_legal(9) && !f.is_legal(11));

    let (alone, _) = planes_of(&g);
    let (framed, _) = planes_of(&f);
    assert_eq!(framed.len(), 9 * 144);
    for ch in 0..9 {
        for r in 0..12 {
            for c in 0..12 {
                let want = if r < 10 && c < 9 { alone[ch * 90 + r * 9 + c] } else { 0.0 };
                assert_eq!(framed[ch * 144 + r * 12 + c], want, "plane {ch}, row {r}, column {c}");
            }
        }
    }
    // The ones plane is the board: 90 cells; the blocked one is on the blocked plane.
    assert_eq!(framed[4 * 144..5 * 144].iter().sum::<f32>(), 90.0);
    assert_eq!(framed[3 * 144 + (10 - 1 - 2) * 12 + 3], 1.0);

    // Mirroring a framed board mirrors the board's own columns and leaves the frame empty.
    let sym = position(9, 9, (4, 0), &[1, 2]).framed(12, 12).unwrap();
    assert_eq!(sym.num_symmetries(), 2);
    assert_eq!(sym.map_action(1, 1), 7);
    let (planes, _) = planes_of(&sym);
    let mut mirrored = vec![0.0; 144];
    sym.map_plane(1, &planes[..144], &mut mirrored);
    let (mut want, _) = planes_of(&position(9, 9, (4, 0), &[7, 6]).framed(12, 12).unwrap());
    want.truncate(144);
    // Plane 0 is the side to move's discs: after two moves the first player's, at 1 → 7.
    assert_eq!(mirrored, want);

    let err = g.framed(8, 12).unwrap_err().to_string();
    assert!(err.contains("does not fit a 8x12 frame"), "{err}");
}

#[test]
fn a_masked_network_gives_the_same_outputs_for_a_board_padded_to_a_larger_size_as_for_the_board_alone() {
    let model = warmed_model();
    for (w, h, blocked, moves) in
        [(9, 10, (3, 2), &[4u16, 4, 3, 0, 8][..]), (12, 11, (0, 0), &[5, 6, 5, 11, 1][..]), (12, 12, (6, 3), &[][..])]
    {
        let g = position(w, h, blocked, moves);
        let framed = g.clone().framed(12, 12).unwrap();
        let (p, v) = outputs(&model, &g, false);
        let (pf, vf) = outputs(&model, &framed, false);
        assert_close(&pf[..w], &p, &format!("{w}x{h} policy"));
        assert_close(&[vf], &[v], &format!("{w}x{h} value"));
        // Columns outside the board take no probability.
        assert!(pf[w..].iter().all(|&x| x == -30.0), "{pf:?}");

        // Training: batch statistics over the board's cells, so the frame changes nothing.
        let (p, v) = outputs(&model, &g, true);
        let (pf, vf) = outputs(&model, &framed, true);
        assert_close(&pf[..w], &p, &format!("{w}x{h} policy in training"));
        assert_close(&[vf], &[v], &format!("{w}x{h} value in training"));
    }
}

#[test]
fn the_folded_network_plays_a_batch_of_boards_of_several_sizes_as_each_alone() {
    let model = warmed_model();
    let boards = [position(9, 10, (3, 2), &[4, 4, 3]), position(11, 12, (10, 11), &[0, 1, 2, 3, 4])];
    let mut planes = Vec::new();
    for g in &boards {
        planes.extend(planes_of(&g.clone().framed(12, 12).unwrap()).0);
    }
    for precision in [Precision::F32] {
        let folded = FoldedNetwork::new(&model, precision);
        let (mut policy, mut value) = (vec![0.0; 2 * 12], vec![0.0; 2]);
        folded.infer(&planes, 2, &mut policy, &mut value);
        for (i, g) in boards.iter().enumerate() {
            let (p, v) = outputs(&model, g, false);
            assert_close(&policy[i * 12..i * 12 + g.width()], &p, &format!("board {i}'s policy"));
            assert_close(&value[i..i + 1], &[v], &format!("board {i}'s value"));
        }
    }
}

#[test]
fn any_size_architectures_round_trip_and_refuse_what_they_cannot_play() {
    let arch = saiblo_arch();
    arch.validate().unwrap();
    assert_eq!((arch.frame(), arch.policy_head), (Some((12, 12)), PolicyHead::Column));
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("net");
    let model = Model::new(arch.clone(), Device::Cpu);
    checkpoint::save(&model, &path, 3, 1, None).unwrap();
    let loaded = checkpoint::load(&path, Device::Cpu, None).unwrap();
    assert_eq!(loaded.sidecar.architecture, arch);
    let text = std::fs::read_to_string(checkpoint::paths(&path).1).unwrap();
    assert!(text.contains("\"any_size\": true"), "{text}");

    // A fixed-size network's sidecar does not mention it (older readers keep reading it).
    let fixed = Architecture::for_game(&Connect4::<u64>::standard(), 1, 8);
    assert!(!serde_json::to_string(&fixed).unwrap().contains("any_size"));

    let small = Architecture { width: 11, actions: 11, ..arch.clone() };
    let err = small.validate().unwrap_err().to_string();
    assert!(err.contains("needs a frame of at least 12x12"), "{err}");
    let gomoku = Architecture { game: "gomoku:9".parse().unwrap(), ..arch.clone() };
    let err = gomoku.validate().unwrap_err().to_string();
    assert!(err.contains("for gomoku:9 has the point policy head, not column"), "{err}");
    let twenty48 = Architecture { game: "2048".parse().unwrap(), ..arch.clone() };
    let err = twenty48.validate().unwrap_err().to_string();
    assert!(err.contains("plays Connect Four or Gomoku boards, not 2048"), "{err}");
    let fc = Architecture { policy_head: PolicyHead::Fc, ..arch };
    assert!(fc.validate().unwrap_err().to_string().contains("policy head fc cannot be that of an any-size network"));
}

/// A Gomoku board with stones on it (moves as `x,y`).
fn gomoku(size: usize, moves: &[(usize, usize)]) -> Gomoku {
    let mut g = Gomoku::new(size).unwrap();
    for &(x, y) in moves {
        g.play(g.action_at(x, y)).unwrap();
    }
    g
}

/// Stones in a four, an open three and the last move off the middle: every plane has cells.
const GOMOKU_MOVES: [(usize, usize); 9] = [(2, 2), (0, 0), (3, 3), (8, 0), (4, 4), (0, 8), (5, 5), (2, 6), (3, 6)];

fn gomoku_arch(frame: usize) -> Architecture {
    Architecture::any_size("gomoku:9-11".parse().unwrap(), frame, frame, 2, 16)
}

/// [`warmed_model`] for Gomoku: running statistics from framed boards of three sizes.
fn warmed_gomoku_model() -> Model {
    set_threads(1);
    tch::manual_seed(11);
    let model = Model::new(gomoku_arch(11), Device::Cpu);
    for size in [9, 10, 11] {
        let g = gomoku(size, &GOMOKU_MOVES).framed(11).unwrap();
        let _ = outputs(&model, &g, true);
    }
    model
}

#[test]
fn a_framed_gomoku_board_encodes_in_the_corner_and_keeps_its_move_numbers() {
    let g = gomoku(9, &GOMOKU_MOVES);
    let f = g.clone().framed(11).unwrap();
    assert_eq!((g.num_actions(), f.num_actions()), (81, 121));
    assert_eq!((f.spec(), f.hash()), (g.spec(), g.hash()), "a frame changes neither the board nor the position");
    let (mut legal, mut framed_legal) = (Vec::new(), Vec::new());
    g.legal_actions(&mut legal);
    f.legal_actions(&mut framed_legal);
    assert_eq!(legal, framed_legal, "moves keep the board's numbers");
    assert!(!f.is_legal(81) && !f.is_legal(120));
    assert_eq!(f.action_to_text(g.action_at(8, 7)), "8,7");
    assert_eq!(f.action_from_text("8,7").unwrap(), 7 * 9 + 8);
    assert!(g.actions_are_cells() && !f.actions_are_cells());

    let (alone, _) = planes_of(&g);
    let (framed, _) = planes_of(&f);
    assert_eq!(framed.len(), 8 * 121);
    for ch in 0..8 {
        for y in 0..11 {
            for x in 0..11 {
                let want = if y < 9 && x < 9 { alone[ch * 81 + y * 9 + x] } else { 0.0 };
                assert_eq!(framed[ch * 121 + y * 11 + x], want, "plane {ch}, point {x},{y}");
            }
        }
    }
    // The ones plane is the board (81 points); the last move, 3,6, is on its plane.
    assert_eq!(framed[3 * 121..4 * 121].iter().sum::<f32>(), 81.0);
    assert_eq!(framed[2 * 121 + 6 * 11 + 3], 1.0);

    // A symmetry maps the board's points within the board and leaves the frame empty: the
    // framed planes of the mapped position.
    for sym in 0..8 {
        let moves: Vec<(usize, usize)> =
            GOMOKU_MOVES.iter().map(|&(x, y)| g.point(g.map_action(sym, g.action_at(x, y)))).collect();
        let (want, _) = planes_of(&gomoku(9, &moves).framed(11).unwrap());
        let mut mapped = vec![0.0; 8 * 121];
        for ch in 0..8 {
            f.map_plane(sym, &framed[ch * 121..][..121], &mut mapped[ch * 121..][..121]);
        }
        assert_eq!(mapped, want, "symmetry {sym}");
        assert_eq!(f.map_action(sym, 100), 100, "a frame cell maps to itself");
    }

    let err = g.clone().framed(8).unwrap_err().to_string();
    assert!(err.contains("the 9x9 board does not fit a 8x8 frame"), "{err}");
    let err = g.in_frame(11, 12).unwrap_err().to_string();
    assert!(err.contains("framed in a square, not 11x12"), "{err}");
}

#[test]
fn a_gomoku_network_gives_each_point_the_logit_it_has_alone_and_the_frame_none() {
    let model = warmed_gomoku_model();
    for size in [9, 10, 11] {
        let g = gomoku(size, &GOMOKU_MOVES[..size - 4]);
        let framed = g.clone().framed(11).unwrap();
        let points = size * size;
        for train in [false, true] {
            let (p, v) = outputs(&model, &g, train);
            let (pf, vf) = outputs(&model, &framed, train);
            assert_eq!((p.len(), pf.len()), (points, 121));
            assert_close(&pf[..points], &p, &format!("{size}x{size} policy (training: {train})"));
            assert_close(&[vf], &[v], &format!("{size}x{size} value (training: {train})"));
            assert!(pf[points..].iter().all(|&x| x == -30.0), "the frame's numbers take nothing: {pf:?}");
        }
    }
}

#[test]
fn the_folded_gomoku_network_plays_a_batch_of_boards_of_several_sizes_as_each_alone() {
    let model = warmed_gomoku_model();
    let boards = [gomoku(9, &GOMOKU_MOVES), gomoku(11, &GOMOKU_MOVES[..4]), gomoku(10, &[])];
    let mut planes = Vec::new();
    for g in &boards {
        planes.extend(planes_of(&g.clone().framed(11).unwrap()).0);
    }
    let folded = FoldedNetwork::new(&model, Precision::F32);
    let (mut policy, mut value) = (vec![0.0; 3 * 121], vec![0.0; 3]);
    folded.infer(&planes, 3, &mut policy, &mut value);
    for (i, g) in boards.iter().enumerate() {
        let (p, v) = outputs(&model, g, false);
        let points = g.size() * g.size();
        assert_close(&policy[i * 121..][..points], &p, &format!("board {i}'s policy"));
        assert_close(&value[i..i + 1], &[v], &format!("board {i}'s value"));
    }
}

#[test]
fn a_gomoku_any_size_network_is_square_holds_its_boards_and_reframes_for_larger_ones() {
    let arch = gomoku_arch(11);
    arch.validate().unwrap();
    assert_eq!((arch.policy_head, arch.actions, arch.input_channels), (PolicyHead::Point, 121, 8));
    for (bad, want) in [
        (
            Architecture { width: 12, actions: 132, ..arch.clone() },
            "needs a square frame of at least 11x11 and at most 20x20, not 12x11",
        ),
        (gomoku_arch(10), "needs a square frame of at least 11x11"),
        (Architecture { actions: 11, ..arch.clone() }, "one move per column or point of its frame (121), not 11"),
        (Architecture { input_channels: 3, ..arch.clone() }, "takes 4..=8 input planes, not 3"),
        (Architecture { policy_head: PolicyHead::Column, ..arch.clone() }, "has the point policy head, not column"),
    ] {
        let err = bad.validate().unwrap_err().to_string();
        assert!(err.contains(want), "{err}");
    }

    // Trained on boards up to 11x11, the same weights play 20x20 in a 20x20 frame.
    assert_eq!(arch.frame_for((20, 20)), (20, 20));
    assert_eq!(arch.frame_for((9, 9)), (11, 11));
    let model = warmed_gomoku_model();
    let mut net = NetEvaluator::new(Model::new(arch.clone(), Device::Cpu));
    net.reframe((20, 20)).unwrap();
    assert_eq!((net.arch().frame(), net.arch().actions), (Some((20, 20)), 400));
    let err = net.reframe((21, 21)).unwrap_err().to_string();
    assert!(err.contains("at most 20x20, not 21x21"), "{err}");
    // The same weights in the larger frame: a 20x20 board's points, the frame's none.
    let (p, _) = outputs(&model, &gomoku(20, &GOMOKU_MOVES).framed(20).unwrap(), false);
    assert!(p.len() == 400 && p.iter().all(|x| x.is_finite() && *x > -30.0), "{p:?}");
    // A player plays each board in its own frame, or one grown to hold a larger board.
    let net = NetEvaluator::new(Model::new(arch.clone(), Device::Cpu));
    let mut agent = NetAgent::<Gomoku>::any_size(net, SearchConfig::default(), "any".into(), Rng::seed_from_u64(1));
    for (size, frame) in [(20, 20), (9, 11), (13, 13)] {
        agent.check_board(&Gomoku::new(size).unwrap()).unwrap();
        assert_eq!(agent.frame(), Some((frame, frame)), "{size}x{size}");
    }
    let c4 = Connect4::<u64>::standard();
    let mut c4_agent = NetAgent::<Connect4<u64>>::any_size(
        NetEvaluator::new(Model::new(arch.clone(), Device::Cpu)),
        SearchConfig::default(),
        "any".into(),
        Rng::seed_from_u64(1),
    );
    let err = c4_agent.check_board(&c4).unwrap_err().to_string();
    assert_eq!(err, "any: a network for gomoku:9-11 cannot play connect4:7x6");
    let fixed = Architecture::for_game(&Gomoku::new(9).unwrap(), 1, 8);
    assert_eq!(
        fixed.reframed((11, 11)).unwrap_err().to_string(),
        "a network of one board (gomoku:9) has no frame to change"
    );
}
