// swift-tools-version: 6.2

import PackageDescription

// A todo list served by ReMVVM Server: its own state, actions, reducer, view model and commands,
// and everything the server has (journal, replicas, tokens, settings) through ReMVVMServerCommand.
let package = Package(
    name: "todo-server",
    dependencies: [
        // This repository, two folders up. A path dependency's identity is its folder's name, which
        // depends on where it was cloned, so `name:` gives the products a fixed package to come
        // from. Outside this repository: .package(url: "https://…/remvvm-server.git", from: "…").
        .package(name: "remvvm-server", path: "../.."),
    ],
    targets: [
        // The domain: state, actions, reducers, view models and their commands.
        .target(
            name: "TodoApp",
            dependencies: [
                .product(name: "ReMVVM", package: "remvvm-server"),
                .product(name: "ReMVVMServer", package: "remvvm-server"),
                .product(name: "ReMVVMServerCommand", package: "remvvm-server"),
            ]
        ),
        // The executable: main.swift hands the domain to the entry point.
        .executableTarget(
            name: "todo-server",
            dependencies: [
                "TodoApp",
                .product(name: "ReMVVMServerCommand", package: "remvvm-server"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
