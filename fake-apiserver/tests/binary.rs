//! The `fake-apiserver` binary, as kubectl users and other-language tests run it: it prints its
//! URL, writes a working kubeconfig, answers on loopback, and stops cleanly on SIGTERM.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

#[test]
fn binary_should_serve_until_sigterm() {
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = dir.path().join("kubeconfig");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fake-apiserver"))
        .arg("--kubeconfig")
        .arg(&kubeconfig)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut url = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let url = url.trim();
    let address = url.strip_prefix("http://").expect("an http URL on the first line");
    let config = std::fs::read_to_string(&kubeconfig).unwrap();
    assert!(config.contains(url));
    let token = config
        .lines()
        .find_map(|line| line.trim().strip_prefix("token: "))
        .expect("the kubeconfig carries the admin's token");

    let get = |authorization: &str| {
        let mut stream = TcpStream::connect(address).unwrap();
        write!(
            stream,
            "GET /api/v1/namespaces/default HTTP/1.1\r\nHost: {address}\r\n{authorization}Connection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    };
    let response = get(&format!("Authorization: Bearer {token}\r\n"));
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(response.contains(r#""name":"default""#), "{response}");
    // Authentication and RBAC are on: no token is the anonymous user, an unknown one is refused.
    let anonymous = get("");
    assert!(anonymous.starts_with("HTTP/1.1 403"), "{anonymous}");
    assert!(
        anonymous.contains(r#"User \"system:anonymous\" cannot get resource \"namespaces\""#),
        "{anonymous}"
    );
    assert!(get("Authorization: Bearer wrong\r\n").starts_with("HTTP/1.1 401"));

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    assert!(child.wait().unwrap().success(), "SIGTERM is a clean stop");
}

#[test]
fn binary_should_refuse_a_non_loopback_address() {
    let dir = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_fake-apiserver"))
        .arg("--kubeconfig")
        .arg(dir.path().join("kubeconfig"))
        .args(["--addr", "0.0.0.0:0"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("loopback only"), "{stderr}");
}
