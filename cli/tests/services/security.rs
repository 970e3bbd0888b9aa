//! Who may talk to a learner: TLS when it is configured (a client without TLS and one that
//! does not trust the learner's CA are refused), a worker with a wrong token stops with the
//! reason instead of retrying forever, and a learner reachable from other machines refuses
//! to start without a token unless told `--insecure`.

use crate::common;

use common::{dojo, path, tiny_config, Proc};
use dojo_worker::client::{self, CallError, Refusal};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use std::path::Path;

/// A CA, and a certificate for 127.0.0.1 and localhost signed by it: (ca.pem, cert.pem,
/// key.pem) written to `dir`.
fn certificates(dir: &Path, name: &str) -> (String, String, String) {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = ca_params.self_signed(&ca_key).unwrap();
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])
        .unwrap()
        .signed_by(&key, &Issuer::new(ca_params, ca_key))
        .unwrap();
    let write = |file: &str, text: String| {
        let p = dir.join(format!("{name}-{file}"));
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    (write("ca.pem", ca.pem()), write("cert.pem", cert.pem()), write("key.pem", key.serialize_pem()))
}

/// A learner of a tiny run on loopback with `extra` arguments: the process and its gRPC
/// address.
fn learner(dir: &Path, extra: &[&str]) -> (Proc, String) {
    let config = dir.join("tiny.toml");
    std::fs::write(&config, tiny_config().to_toml()).unwrap();
    let run = dir.join("run");
    let mut args = vec!["learner", "--run-dir", path(&run), "--config", path(&config)];
    args.extend_from_slice(extra);
    let mut p = Proc::spawn(&args);
    let addr = p.learner_addr();
    (p, addr)
}

fn hello(url: &str, token: Option<&str>, ca: Option<&str>) -> Result<(), CallError> {
    let ca = ca.map(|p| std::fs::read(p).unwrap());
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
        let mut c = client::connect_tls(url, token, "test", ca.as_deref()).await?;
        client::hello(&mut c, "test").await.map(|_| ())
    })
}

#[test]
fn a_tls_learner_serves_clients_that_trust_its_ca_and_no_others() {
    let tmp = tempfile::tempdir().unwrap();
    let (ca, cert, key) = certificates(tmp.path(), "good");
    let (other_ca, _, _) = certificates(tmp.path(), "other");
    let token = tmp.path().join("token");
    std::fs::write(&token, "t0ken").unwrap();
    let (learner, addr) = learner(
        tmp.path(),
        &["--listen", "127.0.0.1:0", "--tls-cert", &cert, "--tls-key", &key, "--token-file", path(&token)],
    );
    let port = addr.rsplit(':').next().unwrap();
    let https = format!("https://127.0.0.1:{port}");

    hello(&https, Some("t0ken"), Some(&ca)).expect("TLS with the learner's CA");
    let plain = hello(&format!("http://127.0.0.1:{port}"), Some("t0ken"), None).unwrap_err();
    assert!(matches!(plain, CallError::Transient(_)), "a client without TLS gets no answer: {plain:?}");
    let wrong = hello(&https, Some("t0ken"), Some(&other_ca)).unwrap_err();
    assert!(wrong.to_string().contains("certificate"), "another CA is not trusted: {wrong:?}");
    let refused = hello(&https, Some("wrong"), Some(&ca)).unwrap_err();
    assert!(
        matches!(&refused, CallError::Refused(Refusal::Unauthorized { message, .. }) if message.contains("wrong token")),
        "{refused:?}"
    );
    let mismatch = hello(&format!("http://127.0.0.1:{port}"), None, Some(&ca)).unwrap_err();
    assert!(matches!(&mismatch, CallError::Refused(Refusal::CaWithoutHttps { .. })), "{mismatch:?}");
    assert_eq!(mismatch.to_string(), format!("a CA certificate is given but http://127.0.0.1:{port} is not https://"));

    // A real worker over TLS delivers its games.
    let out = dojo(&[
        "worker",
        "--learner",
        &https,
        "--tls-ca",
        &ca,
        "--token-file",
        path(&token),
        "--spool",
        path(&tmp.path().join("spool")),
        "--games",
        "2",
        "--parallel",
        "2",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("delivered 2, rejected 0, 0 left in the spool"), "{err}");
    let (code, log) = learner.terminate();
    assert_eq!(code, Some(0), "{log}");
}

#[test]
fn a_worker_with_a_wrong_token_stops_with_the_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let token = tmp.path().join("token");
    std::fs::write(&token, "right").unwrap();
    let (learner, addr) = learner(tmp.path(), &["--listen", "127.0.0.1:0", "--token-file", path(&token)]);
    let worker = Proc::spawn(&[
        "worker",
        "--learner",
        &format!("http://{addr}"),
        "--token",
        "wrong",
        "--spool",
        path(&tmp.path().join("spool")),
    ]);
    let (code, log) = worker.wait();
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("dojo: error: the learner refused this worker (the handshake): wrong token"), "{log}");
    let (code, _) = learner.terminate();
    assert_eq!(code, Some(0));
}

#[test]
fn a_learner_reachable_from_other_machines_needs_a_token_or_insecure() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let out = dojo(&["learner", "--run-dir", path(&run), "--listen", "0.0.0.0:0"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("refusing to listen on 0.0.0.0:0 without a token"), "{err}");
    assert!(!run.exists(), "nothing was created");
    let (learner, addr) = learner(tmp.path(), &["--listen", "0.0.0.0:0", "--insecure"]);
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    let (code, _) = learner.terminate();
    assert_eq!(code, Some(0));
}
