//! A 2D-mesh experiment as JSON: the machine M(W, H) of Ababneh & Bani-Mohammad §2 with a
//! contiguous allocator and a mesh policy, or the machine of Mache et al. §4.1 (I/O nodes on
//! one side) with a non-contiguous allocator under a contention model (`network`). The
//! format is documented in `docs/experiment-format.md`; every key is validated with an error
//! that names it.

use crate::alloc::node_allocator::NODE_ALLOCATORS;
use crate::alloc::{AllocatorKind, NodeAllocatorKind, CONTIGUOUS_ALLOCATORS};
use crate::base::{Entry, Registered, UnknownName};
use crate::limits::Limits;
use crate::modes::flat::spec::{ConfigError, ExperimentFile, WorkloadSpec};
use crate::network::flow::PhaseConfig;
use crate::network::{IoSide, Network, NetworkConfig, NetworkError};
use crate::policy::mesh::MeshPolicyKind;
use crate::workload::shape::ShapeRule;
use crate::workload::transform::Transforms;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The format version this build reads.
pub const MESH_FORMAT_VERSION: u32 = 1;
/// Largest mesh side accepted (see [`crate::limits`]).
pub use crate::limits::MAX_MESH_SIDE;
/// κ of the flow model by default (the value of `schedlab reproduce mc-elongated`).
pub const DEFAULT_KAPPA: f64 = 0.001;

fn one() -> u32 {
    MESH_FORMAT_VERSION
}

fn half() -> f64 {
    0.5
}

fn default_kappa() -> f64 {
    DEFAULT_KAPPA
}

/// A mesh allocator: contiguous (submesh) or non-contiguous (node set).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshAllocatorKind {
    Contiguous(AllocatorKind),
    Nodes(NodeAllocatorKind),
}

impl Default for MeshAllocatorKind {
    fn default() -> Self {
        MeshAllocatorKind::Contiguous(AllocatorKind::Mpl)
    }
}

impl MeshAllocatorKind {
    /// Every allocator, contiguous first, in the order the app lists them.
    pub fn all() -> Vec<MeshAllocatorKind> {
        let mut v: Vec<MeshAllocatorKind> = AllocatorKind::ALL
            .iter()
            .map(|&k| MeshAllocatorKind::Contiguous(k))
            .collect();
        v.extend(
            NodeAllocatorKind::ALL
                .iter()
                .map(|&k| MeshAllocatorKind::Nodes(k)),
        );
        v
    }

    /// The binary-tree allocators of Liu et al. (the paper's 28 settings), as the app lists them
    /// after [`MeshAllocatorKind::all`].
    pub fn trees() -> Vec<MeshAllocatorKind> {
        NodeAllocatorKind::trees()
            .into_iter()
            .map(MeshAllocatorKind::Nodes)
            .collect()
    }

    /// The name used in files (`mpl`, `first_fit`, `mc_elongated`, `paging_0`, `hilbert_bf`).
    pub fn as_str(self) -> String {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.as_str().to_string(),
            MeshAllocatorKind::Nodes(k) => k.as_str(),
        }
    }

    /// Parses a contiguous or non-contiguous allocator name.
    pub fn parse(s: &str) -> Result<MeshAllocatorKind, UnknownName> {
        if let Some((i, p)) = CONTIGUOUS_ALLOCATORS.find(s) {
            if let Some(k) = AllocatorKind::from_key(i, p) {
                return Ok(MeshAllocatorKind::Contiguous(k));
            }
        }
        NodeAllocatorKind::lookup(s)
            .map(MeshAllocatorKind::Nodes)
            .map_err(|_| UnknownName {
                noun: "allocator",
                name: s.to_string(),
                expected: format!(
                    "{}, or {}",
                    CONTIGUOUS_ALLOCATORS.expected().replace(" or ", ", "),
                    NODE_ALLOCATORS.expected()
                ),
            })
    }

    /// `true` for First Fit, Best Fit and MPL.
    pub fn is_contiguous(self) -> bool {
        matches!(self, MeshAllocatorKind::Contiguous(_))
    }

    /// Name as in the papers (`MPL`, `MC-Elongated`, `Paging(0)`).
    pub fn label(self) -> String {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.label(),
            MeshAllocatorKind::Nodes(k) => k.label(),
        }
    }

    /// Its registry entry (name, labels, description).
    pub fn entry(self) -> &'static Entry {
        match self {
            MeshAllocatorKind::Contiguous(k) => k.entry(),
            MeshAllocatorKind::Nodes(k) => k.entry(),
        }
    }
}

impl Serialize for MeshAllocatorKind {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.as_str())
    }
}

impl<'de> Deserialize<'de> for MeshAllocatorKind {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        MeshAllocatorKind::parse(&s).map_err(serde::de::Error::custom)
    }
}

fn fcfs() -> MeshPolicyKind {
    MeshPolicyKind::Fcfs
}

/// The contention model of a non-contiguous run (`network.model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContentionModel {
    /// The flow model of [`crate::network::flow`]: service C (1 + κ b), b the most loaded link
    /// of the job's mixed traffic.
    #[default]
    Flow,
    /// The separated-classes model of [`crate::network::separated`]: communication paced by
    /// its own all-to-all links, I/O by the I/O paths, service C (σ + κ (ρ b^B + (1 − ρ) b^A)).
    Separated,
    /// The packet-level wormhole model of [`crate::network::wormhole`] (ρ only; its defaults).
    Wormhole,
}

impl ContentionModel {
    /// All three, default first.
    pub const ALL: [ContentionModel; 3] = [
        ContentionModel::Flow,
        ContentionModel::Separated,
        ContentionModel::Wormhole,
    ];

    /// The name in files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ContentionModel::Flow => "flow",
            ContentionModel::Separated => "separated",
            ContentionModel::Wormhole => "wormhole",
        }
    }

    /// Parses `flow`, `separated` or `wormhole`.
    pub fn parse(s: &str) -> Result<ContentionModel, UnknownName> {
        ContentionModel::ALL
            .into_iter()
            .find(|m| m.as_str() == s)
            .ok_or_else(|| UnknownName {
                noun: "contention model",
                name: s.to_string(),
                expected: "flow, separated or wormhole".into(),
            })
    }

    fn is_flow(&self) -> bool {
        *self == ContentionModel::Flow
    }
}

fn is_zero(v: &f64) -> bool {
    *v == 0.0
}

/// The I/O line and the traffic of Mache et al. §4.1.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshNetworkSpec {
    /// Side of the I/O nodes (default west).
    #[serde(default)]
    pub io_side: IoSide,
    /// Number of I/O nodes (default one per row, or per column for north/south).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub io_count: Option<u32>,
    /// ρ: the fraction of I/O in every job's communication, 0 ..= 1 (default 0.5).
    #[serde(default = "half")]
    pub traffic_io: f64,
    /// κ: slowdown per message on a job's most loaded link (default 0.001).
    #[serde(default = "default_kappa")]
    pub kappa: f64,
    /// Liu et al.'s phase model (§2, §5.2) instead of the fluid mix of ρ and κ: every job
    /// alternates all-to-all exchanges and complete-bipartite writes
    /// ([`flow::PhaseConfig`]; default off).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phases: Option<PhaseConfig>,
    /// The contention model of ρ and κ: `flow` (default) or `separated`.
    #[serde(default, skip_serializing_if = "ContentionModel::is_flow")]
    pub model: ContentionModel,
    /// σ: weight of the computation term of the separated model, 0 ..= 1 (default 0).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub compute: f64,
    /// The wormhole model's packet size, flit time and round length (`network.wormhole`;
    /// only with `model = "wormhole"`; absent: [`WormholeSpec::default`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wormhole: Option<WormholeSpec>,
}

fn default_flits() -> u32 {
    crate::network::wormhole::DEFAULT_FLITS
}

fn default_flit_time() -> f64 {
    crate::network::wormhole::DEFAULT_FLIT_SECONDS
}

fn default_round_length() -> f64 {
    crate::network::wormhole::DEFAULT_ROUND_SECONDS
}

/// The parameters of the packet-level wormhole model (`network.wormhole`, Mache et al. §4.1;
/// the paper gives none of them, `docs/network-model.md` "Wormhole model"). Every key is
/// optional; the defaults are the model's (8 flits, 1 s, 7150 s).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WormholeSpec {
    /// Flits per packet (every message is one packet), 1 ..= [`crate::limits::MAX_PACKET_FLITS`].
    #[serde(default = "default_flits")]
    pub flits: u32,
    /// Seconds per flit time (converts the workload's submit times; service times come out
    /// in flit times × this), [`crate::limits::MIN_TIME`] ..= [`crate::limits::MAX_TIME`].
    #[serde(default = "default_flit_time")]
    pub flit_time: f64,
    /// Seconds of a job's run time per round of its traffic pattern (a job of run time C runs
    /// max(1, round(C / round_length)) rounds), [`crate::limits::MIN_ROUND_LENGTH`] ..=
    /// [`crate::limits::MAX_TIME`].
    #[serde(default = "default_round_length")]
    pub round_length: f64,
}

impl Default for WormholeSpec {
    fn default() -> Self {
        WormholeSpec {
            flits: default_flits(),
            flit_time: default_flit_time(),
            round_length: default_round_length(),
        }
    }
}

impl WormholeSpec {
    /// Checks the ranges; the error names the key under `network.wormhole`.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        use crate::limits::{echo_number, MAX_PACKET_FLITS, MAX_TIME, MIN_ROUND_LENGTH, MIN_TIME};
        if self.flits == 0 || self.flits > MAX_PACKET_FLITS {
            return Err((
                "flits",
                format!(
                    "must be between 1 and {MAX_PACKET_FLITS} (got {})",
                    self.flits
                ),
            ));
        }
        for (key, v, lo) in [
            ("flit_time", self.flit_time, MIN_TIME),
            ("round_length", self.round_length, MIN_ROUND_LENGTH),
        ] {
            if !(v.is_finite() && (lo..=MAX_TIME).contains(&v)) {
                return Err((
                    key,
                    format!(
                        "must be a number of seconds between {} and {} (got {})",
                        echo_number(lo),
                        echo_number(MAX_TIME),
                        echo_number(v)
                    ),
                ));
            }
        }
        Ok(())
    }
}

impl Default for MeshNetworkSpec {
    fn default() -> Self {
        MeshNetworkSpec {
            io_side: IoSide::West,
            io_count: None,
            traffic_io: 0.5,
            kappa: DEFAULT_KAPPA,
            phases: None,
            model: ContentionModel::Flow,
            compute: 0.0,
            wormhole: None,
        }
    }
}

/// One mesh run: workload, transforms, mesh, allocator, policy, network, seed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeshExperiment {
    #[serde(default = "one")]
    pub version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub workload: WorkloadSpec,
    #[serde(default)]
    pub transforms: Transforms,
    /// W: columns of compute nodes.
    pub width: u32,
    /// H: rows of compute nodes.
    pub height: u32,
    /// Default MPL.
    #[serde(default)]
    pub allocator: MeshAllocatorKind,
    /// Default FCFS; non-contiguous allocators run FCFS only.
    #[serde(default = "fcfs")]
    pub policy: MeshPolicyKind,
    /// How sizes become w × h requests for contiguous allocators (jobs that already carry a
    /// shape fitting the mesh — the `mesh_jobs` model — keep it).
    #[serde(default)]
    pub shape_rule: ShapeRule,
    #[serde(default)]
    pub network: MeshNetworkSpec,
    #[serde(default)]
    pub seed: u64,
    /// Contiguous allocators: a w × h request that does not fit may take an h × w submesh
    /// (orientation switching, [`crate::alloc::orientation`]; default off).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub switch_orientation: bool,
}

impl ExperimentFile for MeshExperiment {
    fn check(&self, limits: &Limits) -> Result<(), ConfigError> {
        self.validate_with(limits)
    }
}

impl MeshExperiment {
    /// Checks what serde cannot — version, sizes, ranges, the policy–allocator pairing — under
    /// `limits` (the CLI may raise them; [`ExperimentFile::validate`]: the default [`Limits`]).
    pub fn validate_with(&self, limits: &Limits) -> Result<(), ConfigError> {
        let err = |key: &str, message: String| ConfigError {
            key: key.to_string(),
            message,
        };
        crate::modes::flat::spec::check_version(self.version, MESH_FORMAT_VERSION)?;
        for (key, v) in [("width", self.width), ("height", self.height)] {
            if v == 0 || v > MAX_MESH_SIDE {
                return Err(err(
                    key,
                    format!("must be between 1 and {MAX_MESH_SIDE} (got {v})"),
                ));
            }
        }
        // The workload and transforms follow the flat experiment's rules (and key names).
        let mut probe = crate::modes::flat::spec::Experiment::new(
            self.workload.clone(),
            crate::policy::PolicyKind::Fcfs,
        );
        probe.transforms = self.transforms.clone();
        probe.validate_with(limits)?;
        if !self.allocator.is_contiguous() && self.policy != MeshPolicyKind::Fcfs {
            return Err(err(
                "policy",
                format!(
                    "{} is a non-contiguous allocator, which runs FCFS under the contention \
                     model (Mache et al.); got {}",
                    self.allocator.label(),
                    self.policy.label()
                ),
            ));
        }
        let n = &self.network;
        if !(n.traffic_io.is_finite() && (0.0..=1.0).contains(&n.traffic_io)) {
            return Err(err(
                "network.traffic_io",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.traffic_io)
                ),
            ));
        }
        if !(n.kappa.is_finite() && (0.0..=1.0).contains(&n.kappa)) {
            return Err(err(
                "network.kappa",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.kappa)
                ),
            ));
        }
        if let Some(p) = &n.phases {
            p.validate()
                .map_err(|(key, m)| err(&format!("network.phases.{key}"), m))?;
            if n.model != ContentionModel::Flow {
                return Err(err(
                    "network.model",
                    format!(
                        "{} cannot be combined with network.phases (the phase model replaces \
                         the traffic mix); use flow or leave it out",
                        n.model.as_str()
                    ),
                ));
            }
        }
        if !(n.compute.is_finite() && (0.0..=1.0).contains(&n.compute)) {
            return Err(err(
                "network.compute",
                format!(
                    "must be between 0 and 1 (got {})",
                    crate::limits::echo_number(n.compute)
                ),
            ));
        }
        if let Some(w) = &n.wormhole {
            if n.model != ContentionModel::Wormhole {
                return Err(err(
                    "network.wormhole",
                    format!(
                        "applies to network.model = \"wormhole\" only (the model is {})",
                        n.model.as_str()
                    ),
                ));
            }
            w.validate()
                .map_err(|(key, m)| err(&format!("network.wormhole.{key}"), m))?;
        }
        self.network_model()
            .map_err(|e| err("network.io_count", e.to_string()))?;
        Ok(())
    }

    /// The wormhole model's parameters of this run: `network.wormhole` (or its defaults) with
    /// the experiment's ρ.
    pub fn wormhole_config(&self) -> crate::network::wormhole::WormholeConfig {
        let w = self.network.wormhole.unwrap_or_default();
        crate::network::wormhole::WormholeConfig {
            traffic_io: self.network.traffic_io,
            packet_flits: w.flits,
            flit_seconds: w.flit_time,
            round_seconds: w.round_length,
            ..crate::network::wormhole::WormholeConfig::default()
        }
    }

    /// The compute mesh with its I/O line.
    pub fn network_model(&self) -> Result<Network, NetworkError> {
        Network::new(NetworkConfig {
            width: self.width,
            height: self.height,
            io_side: self.network.io_side,
            io_count: self.network.io_count,
        })
    }
}
