//! Network players built from specs play as their options say.

use dojo_arbiter::players::{BaselinePlayers, NetSpec, PlayerSpec};
use dojo_arch::architecture::Architecture;
use dojo_game::connect4::Connect4;
use dojo_game::Game;
use dojo_net::checkpoint;
use dojo_net::device::set_threads;
use dojo_net::device::Device;
use dojo_net::model::Model;
use dojo_search::config::{SearchConfig, SearchMode};

type C4 = Connect4<u64>;

fn position(moves: &str) -> C4 {
    let mut game = C4::standard();
    for action in game.moves_from_text(moves).unwrap() {
        game.play(action).unwrap();
    }
    game
}

/// The column a player picks in `moves` and in its mirror image (column c ↔ 8 - c).
fn picks(spec: &PlayerSpec, moves: &str) -> (String, String) {
    let mirrored: String = moves.chars().map(|c| char::from(b'8' - (c as u8 - b'0'))).collect();
    let mut player = C4::baseline(spec, 1).unwrap();
    let (a, b) = (position(moves), position(&mirrored));
    player.new_game(1);
    let pick_a = a.action_to_text(player.select_move(&a));
    player.new_game(1);
    let pick_b = b.action_to_text(player.select_move(&b));
    (pick_a, pick_b)
}

#[test]
fn the_default_network_player_averages_over_the_mirror_so_mirrored_positions_get_mirrored_moves() {
    set_threads(1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("net.safetensors");
    let arch = Architecture::for_game(&C4::standard(), 1, 8);
    checkpoint::save(&Model::seeded(arch, Device::Cpu, 7), &path, 0, 1, None).unwrap();
    let averaged = PlayerSpec::net(&path, 64);
    assert_eq!(format!("net:{}:sims=64", path.display()).parse::<PlayerSpec>().unwrap(), averaged);
    // A random network judges a position and its mirror image differently; their average
    // is the same judgement mirrored, so the search (no noise) is mirrored move for move.
    let mut raw_differs = false;
    for moves in ["1", "12", "1123", "2234", "33122", "612"] {
        let (pick, mirror_pick) = picks(&averaged, moves);
        let expected = char::from(b'8' - (pick.as_bytes()[0] - b'0')).to_string();
        assert_eq!(mirror_pick, expected, "{moves}: {pick} but {mirror_pick} in the mirror image");
        let raw = PlayerSpec::Net(NetSpec {
            path: path.clone(),
            average_symmetries: false,
            search: SearchConfig::for_play(64),
            clock_ms: None,
        });
        let (pick, mirror_pick) = picks(&raw, moves);
        raw_differs |= mirror_pick != char::from(b'8' - (pick.as_bytes()[0] - b'0')).to_string();
    }
    // Without averaging the same network is not mirror-consistent somewhere: the check
    // above is one averaging passes, not one every search passes.
    assert!(raw_differs, "the raw network played mirrored moves everywhere: the test proves nothing");
    // The Gumbel search plays without noise: mirrored too.
    let gumbel: PlayerSpec = format!("net:{}:sims=16:mode=gumbel", path.display()).parse().unwrap();
    assert!(matches!(gumbel, PlayerSpec::Net(NetSpec { search: SearchConfig { mode: SearchMode::Gumbel, .. }, .. })));
    for moves in ["1", "12", "1123", "2234", "33122", "612"] {
        let (pick, mirror_pick) = picks(&gumbel, moves);
        let expected = char::from(b'8' - (pick.as_bytes()[0] - b'0')).to_string();
        assert_eq!(mirror_pick, expected, "gumbel {moves}: {pick} but {mirror_pick} in the mirror image");
    }
}
